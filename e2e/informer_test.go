package e2e

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/capstan-io/capstan/e2e/framework"
)

// client-go reads KUBE_FEATURE_* once per process, so each informer mode runs
// in a child test process with its own environment. The parent runs the server
// and hands the child these variables.
const (
	envChildKubeconfig = "CAPSTAN_E2E_CHILD_KUBECONFIG"
	envChildNamespace  = "CAPSTAN_E2E_CHILD_NAMESPACE"
	envWatchListClient = "KUBE_FEATURE_" + string(clientfeatures.WatchListClient)
)

// TestInformer runs a ConfigMap informer from a SharedInformerFactory twice:
// with the classic list-then-watch, and with a streaming list (client-go's
// WatchListClient: one watch with sendInitialEvents=true).
func TestInformer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		watchList bool
	}{
		{"list-then-watch", false},
		{"streaming-list", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if kubeconfig := os.Getenv(envChildKubeconfig); kubeconfig != "" {
				testInformer(t, kubeconfig, os.Getenv(envChildNamespace), tc.watchList)
				return
			}
			t.Parallel()
			s := startServer(t)
			ns := createNamespace(t, clientset(t, s), "informer")
			runInChild(t, "^TestInformer$/^"+tc.name+"$",
				envChildKubeconfig+"="+s.Kubeconfig,
				envChildNamespace+"="+ns,
				envWatchListClient+"="+strconv.FormatBool(tc.watchList))

			// The server's own count: a streaming informer never lists. A
			// watch is counted when it ends, which the child's exit causes.
			if lists := requestCount(t, s, "list", "configmaps"); (lists > 0) == tc.watchList {
				t.Errorf("server counted %d configmap lists; want lists: %v", lists, !tc.watchList)
			}
			waitForRequestCount(t, s, "watch", "configmaps")
		})
	}
}

// testInformer is the child's half: it runs the informer and checks what it saw.
func testInformer(t *testing.T, kubeconfig, ns string, watchList bool) {
	if got := clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient); got != watchList {
		t.Fatalf("client-go feature %s = %v, want %v; is %s set?", clientfeatures.WatchListClient, got, watchList, envWatchListClient)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var seen requestLog
	icfg := rest.CopyConfig(cfg)
	icfg.Wrap(seen.wrap)
	ics, err := kubernetes.NewForConfig(icfg)
	if err != nil {
		t.Fatal(err)
	}
	createConfigMap(t, cs, ns, "before-start", "blue")

	ctx, cancel := context.WithCancel(t.Context())
	factory := informers.NewSharedInformerFactoryWithOptions(ics, 0, informers.WithNamespace(ns))
	defer factory.Shutdown() // runs after cancel, and waits for the informer's goroutines
	defer cancel()
	informer := factory.Core().V1().ConfigMaps()
	events := make(chan string, 16) // "add|update|delete name color", in handler order
	emit := func(verb string, obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		cm := obj.(*corev1.ConfigMap)
		select {
		case events <- verb + " " + cm.Name + " " + cm.Data["color"]:
		case <-ctx.Done():
		}
	}
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { emit("add", obj) },
		UpdateFunc: func(_, obj any) { emit("update", obj) },
		DeleteFunc: func(obj any) { emit("delete", obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	for typ, ok := range factory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync within 30s", typ)
		}
	}
	expectEvent(t, events, "add before-start blue")

	cms := cs.CoreV1().ConfigMaps(ns)
	for _, step := range []struct {
		name string
		do   func() error
		want string
	}{
		{"create", func() error { _, err := cms.Create(ctx, configMap("cm", "blue"), metav1.CreateOptions{}); return err }, "add cm blue"},
		{"update", func() error { _, err := cms.Update(ctx, configMap("cm", "red"), metav1.UpdateOptions{}); return err }, "update cm red"},
		{"delete", func() error { return cms.Delete(ctx, "cm", metav1.DeleteOptions{}) }, "delete cm red"},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		expectEvent(t, events, step.want)
	}
	if _, err := informer.Lister().ConfigMaps(ns).Get("before-start"); err != nil {
		t.Errorf("lister: %v", err)
	}

	// How the reflector filled its cache: the first request it sent.
	reqs := seen.get()
	if len(reqs) == 0 {
		t.Fatal("the informer sent no requests")
	}
	first := reqs[0].Query()
	t.Logf("informer requests: %v", reqs)
	if watchList {
		for _, param := range []string{"watch", "sendInitialEvents", "allowWatchBookmarks"} {
			if first.Get(param) != "true" {
				t.Errorf("first informer request %v: want %s=true", reqs[0], param)
			}
		}
		if got := first.Get("resourceVersionMatch"); got != "NotOlderThan" {
			t.Errorf("first informer request %v: resourceVersionMatch %q, want NotOlderThan", reqs[0], got)
		}
		for _, r := range reqs {
			if r.Query().Get("watch") != "true" {
				t.Errorf("streaming informer fell back to a list: %v", r)
			}
		}
	} else if first.Get("watch") == "true" || first.Has("sendInitialEvents") {
		t.Errorf("first informer request %v: want a plain list", reqs[0])
	}
}

func expectEvent(t *testing.T, events <-chan string, want string) {
	t.Helper()
	select {
	case got := <-events:
		if got != want {
			t.Fatalf("informer handler saw %q, want %q", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("informer handler did not see %q within 10s", want)
	}
}

// requestLog records the URLs of requests sent through a rest.Config.
type requestLog struct {
	mu   sync.Mutex
	urls []*url.URL
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.urls = append(l.urls, r.URL)
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

func (l *requestLog) get() []*url.URL {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*url.URL(nil), l.urls...)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// runInChild re-runs this test binary for the tests that match pattern, with
// env added to the environment, and fails t if they fail or do not run.
func runInChild(t *testing.T, pattern string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+pattern, "-test.count=1", "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), append(env, envCapstanBin+"="+capstanBin)...)
	out, err := cmd.CombinedOutput()
	t.Logf("child %s:\n%s", pattern, out)
	if err != nil {
		t.Fatalf("child test process: %v", err)
	}
	if !bytes.Contains(out, []byte("--- PASS: ")) {
		t.Fatalf("child test process ran no test matching %s", pattern)
	}
}

// requestCount sums the server's apiserver_request_total over codes for verb and resource.
func requestCount(t *testing.T, s *framework.Server, verb, resource string) int {
	t.Helper()
	body, err := s.Get(t.Context(), "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") ||
			!strings.Contains(line, `verb="`+verb+`"`) || !strings.Contains(line, `resource="`+resource+`"`) {
			continue
		}
		n, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("parsing metric line %q: %v", line, err)
		}
		total += int(n)
	}
	return total
}

// waitForRequestCount waits until the server has counted a verb request on resource.
func waitForRequestCount(t *testing.T, s *framework.Server, verb, resource string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for requestCount(t, s, verb, resource) == 0 {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("server counted no %s of %s within 10s", verb, resource)
		}
	}
}
