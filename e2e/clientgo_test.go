package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/capstan-io/capstan/e2e/framework"
)

// TestClientGo drives one server with a client-go Clientset. Each scenario has
// a namespace of its own.
func TestClientGo(t *testing.T) {
	s := startServer(t)
	cs := clientset(t, s)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, cs *kubernetes.Clientset, ns string)
	}{
		{"paging", testClientGoPaging},
		{"errors", testClientGoErrors},
		{"watch", testClientGoWatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, cs, createNamespace(t, cs, "clientgo-"+tc.name))
		})
	}
}

// testClientGoPaging lists five ConfigMaps with Limit and Continue.
func testClientGoPaging(t *testing.T, cs *kubernetes.Clientset, ns string) {
	ctx := t.Context()
	var want []string
	for i := range 5 {
		want = append(want, fmt.Sprintf("page-%d", i))
		createConfigMap(t, cs, ns, want[i], "blue")
	}
	var got []string
	var listRV string
	opts := metav1.ListOptions{Limit: 2}
	for pages := 1; ; pages++ {
		list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, opts)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		if len(list.Items) > 2 {
			t.Errorf("page %d has %d items, want at most 2", pages, len(list.Items))
		}
		if listRV == "" {
			listRV = list.ResourceVersion
		} else if list.ResourceVersion != listRV {
			t.Errorf("page %d has resourceVersion %s, want the first page's %s", pages, list.ResourceVersion, listRV)
		}
		for _, cm := range list.Items {
			got = append(got, cm.Name)
		}
		if list.Continue == "" {
			if pages != 3 {
				t.Errorf("5 items in pages of 2 took %d pages, want 3", pages)
			}
			break
		}
		if pages > 5 {
			t.Fatalf("still paging after %d pages: %v", pages, got)
		}
		opts.Continue = list.Continue
	}
	if !slices.Equal(got, want) {
		t.Errorf("paged list = %v, want %v", got, want)
	}
}

// testClientGoErrors checks that failures decode into the errors client-go
// callers branch on.
func testClientGoErrors(t *testing.T, cs *kubernetes.Clientset, ns string) {
	cms := cs.CoreV1().ConfigMaps(ns)
	stale := createConfigMap(t, cs, ns, "stale", "blue")
	fresh := stale.DeepCopy()
	fresh.Data["color"] = "red"
	if _, err := cms.Update(t.Context(), fresh, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("first update: %v", err)
	}
	createConfigMap(t, cs, ns, "taken", "blue")

	for _, tc := range []struct {
		name     string
		call     func(ctx context.Context) error
		is       func(error) bool
		wantCode int32
	}{
		{"get missing", func(ctx context.Context) error {
			_, err := cms.Get(ctx, "missing", metav1.GetOptions{})
			return err
		}, apierrors.IsNotFound, 404},
		{"delete missing", func(ctx context.Context) error {
			return cms.Delete(ctx, "missing", metav1.DeleteOptions{})
		}, apierrors.IsNotFound, 404},
		{"create duplicate", func(ctx context.Context) error {
			_, err := cms.Create(ctx, configMap("taken", "blue"), metav1.CreateOptions{})
			return err
		}, apierrors.IsAlreadyExists, 409},
		{"update with stale resourceVersion", func(ctx context.Context) error {
			_, err := cms.Update(ctx, stale, metav1.UpdateOptions{})
			return err
		}, apierrors.IsConflict, 409},
		{"create in missing namespace", func(ctx context.Context) error {
			_, err := cs.CoreV1().ConfigMaps("no-such-ns").Create(ctx, configMap("orphan", "blue"), metav1.CreateOptions{})
			return err
		}, apierrors.IsNotFound, 404},
		{"invalid name", func(ctx context.Context) error {
			_, err := cms.Create(ctx, configMap("Not_Valid", "blue"), metav1.CreateOptions{})
			return err
		}, apierrors.IsInvalid, 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(t.Context())
			if !tc.is(err) {
				t.Fatalf("got %v (reason %q), want a %d", err, apierrors.ReasonForError(err), tc.wantCode)
			}
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != tc.wantCode {
				t.Errorf("got status %+v, want code %d", status, tc.wantCode)
			}
		})
	}
}

// testClientGoWatch watches from a list's resourceVersion and sees one object
// created, updated and deleted, in order.
func testClientGoWatch(t *testing.T, cs *kubernetes.Clientset, ns string) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps(ns)
	createConfigMap(t, cs, ns, "before", "blue") // in the list, so not in the watch
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	lastRV := parseRV(t, list.ResourceVersion)
	for _, step := range []struct {
		name     string
		do       func() error
		wantType watch.EventType
		wantData string
	}{
		{"create", func() error {
			_, err := cms.Create(ctx, configMap("watched", "blue"), metav1.CreateOptions{})
			return err
		}, watch.Added, "blue"},
		{"update", func() error {
			cm, err := cms.Get(ctx, "watched", metav1.GetOptions{})
			if err != nil {
				return err
			}
			cm.Data["color"] = "red"
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
			return err
		}, watch.Modified, "red"},
		{"delete", func() error { return cms.Delete(ctx, "watched", metav1.DeleteOptions{}) }, watch.Deleted, "red"},
	} {
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("%s: watch closed", step.name)
			}
			cm, isCM := ev.Object.(*corev1.ConfigMap)
			if ev.Type != step.wantType || !isCM || cm.Name != "watched" || cm.Data["color"] != step.wantData {
				t.Fatalf("%s: got %s %#v, want %s of watched with color %s", step.name, ev.Type, ev.Object, step.wantType, step.wantData)
			}
			rv := parseRV(t, cm.ResourceVersion)
			if rv <= lastRV {
				t.Errorf("%s: resourceVersion %d is not after %d", step.name, rv, lastRV)
			}
			lastRV = rv
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no watch event within 10s", step.name)
		}
	}
}

func clientset(t *testing.T, s *framework.Server) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(framework.RestConfig(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func createNamespace(t *testing.T, cs kubernetes.Interface, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := cs.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	return name
}

func configMap(name, color string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"color": color}}
}

func createConfigMap(t *testing.T, cs kubernetes.Interface, ns, name, color string) *corev1.ConfigMap {
	t.Helper()
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(t.Context(), configMap(name, color), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating configmap %s/%s: %v", ns, name, err)
	}
	if _, err := strconv.ParseInt(cm.ResourceVersion, 10, 64); err != nil {
		t.Fatalf("created configmap has resourceVersion %q: %v", cm.ResourceVersion, err)
	}
	return cm
}
