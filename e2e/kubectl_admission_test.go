package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/capstan-io/capstan/e2e/framework"
)

// testKubectlExplain reads the schemas through both OpenAPI documents.
func testKubectlExplain(t *testing.T, s *framework.Server, _ string) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"explain", "pods.spec.containers"}, []string{"KIND:       Pod", "FIELD: containers <[]Container>", "imagePullPolicy\t<string>", "enum: Always, IfNotPresent, Never", "resources\t<ResourceRequirements>"}},
		{[]string{"explain", "deployments.spec.strategy"}, []string{"GROUP:      apps", "KIND:       Deployment", "rollingUpdate\t<RollingUpdateDeployment>"}},
		{[]string{"explain", "svc.spec.ports.targetPort"}, []string{"FIELD: targetPort <IntOrString>"}},
		{[]string{"explain", "pods.spec.containers.ports", "--output=plaintext-openapiv2"}, []string{"RESOURCE: ports <[]Object>", "containerPort\t<integer>"}},
	} {
		out := kubectl(t, s, tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("kubectl %s: no %q in\n%s", strings.Join(tc.args, " "), w, out)
			}
		}
	}

	// Descriptions are k8s.io/api's, through both documents. kubectl wraps
	// them at its own width, so words are compared, not lines.
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"explain", "pods.spec.containers.image"}, []string{corev1.Container{}.SwaggerDoc()["image"]}},
		{[]string{"explain", "pods.spec.containers.image", "--output=plaintext-openapiv2"}, []string{corev1.Container{}.SwaggerDoc()["image"]}},
		{[]string{"explain", "pods.spec.containers"}, []string{corev1.PodSpec{}.SwaggerDoc()["containers"], corev1.Container{}.SwaggerDoc()["imagePullPolicy"]}},
		{[]string{"explain", "pods"}, []string{corev1.Pod{}.SwaggerDoc()[""], corev1.Pod{}.SwaggerDoc()["spec"]}},
		{[]string{"explain", "deployments.spec"}, []string{appsv1.DeploymentSpec{}.SwaggerDoc()["replicas"]}},
	} {
		out := kubectl(t, s, tc.args...)
		if strings.Contains(out, "<no description>") {
			t.Errorf("kubectl %s: a field without a description:\n%s", strings.Join(tc.args, " "), out)
		}
		for _, w := range tc.want {
			if w == "" || !strings.Contains(words(out), words(w)) {
				t.Errorf("kubectl %s: no description %q in\n%s", strings.Join(tc.args, " "), w, out)
			}
		}
	}
}

// testKubectlFieldValidation checks kubectl's --validate modes against server-side field validation.
func testKubectlFieldValidation(t *testing.T, s *framework.Server, ns string) {
	file := filepath.Join(t.TempDir(), "pod.yaml")
	os.WriteFile(file, []byte(`apiVersion: v1
kind: Pod
metadata: {name: typo}
spec:
  containers:
  - name: c
    image: nginx
    imagePullPolicyy: Never
`), 0o644)
	if msg := kubectlFails(t, s, "create", "-n", ns, "-f", file); !strings.Contains(msg, `Error from server (BadRequest): error when creating "`+file+`": strict decoding error: unknown field "spec.containers[0].imagePullPolicyy"`) {
		t.Errorf("strict: %s", msg)
	}
	out, err := framework.KubectlCombined(t, s, "create", "-n", ns, "-f", file, "--validate=warn")
	if err != nil || !strings.Contains(out, `Warning: unknown field "spec.containers[0].imagePullPolicyy"`) || !strings.Contains(out, "pod/typo created") {
		t.Errorf("warn: %v\n%s", err, out)
	}
	var p corev1.Pod
	kubectlJSON(t, s, &p, "get", "pod", "typo", "-n", ns)
	if c := p.Spec.Containers[0]; c.ImagePullPolicy != corev1.PullAlways || c.TerminationMessagePath != "/dev/termination-log" || p.Spec.RestartPolicy != corev1.RestartPolicyAlways {
		t.Errorf("defaults not applied: %+v", p.Spec)
	}
	bad := strings.Replace(strings.Replace(readFile(t, file), "imagePullPolicyy: Never", "imagePullPolicy: Sometimes", 1), "name: typo", "name: bad", 1)
	os.WriteFile(file, []byte(bad), 0o644)
	if msg := kubectlFails(t, s, "create", "-n", ns, "-f", file); !strings.Contains(msg, `The Pod "bad" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`) {
		t.Errorf("invalid: %s", msg)
	}
}

// testKubectlApplyTwice applies a deployment, then a changed one that adds,
// changes and removes containers, env entries and ports by their merge keys.
func testKubectlApplyTwice(t *testing.T, s *framework.Server, ns string) {
	file := filepath.Join(t.TempDir(), "web.yaml")
	manifest := func(containers string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
` + containers
	}
	os.WriteFile(file, []byte(manifest(`      - name: a
        image: nginx:1.27
        env: [{name: KEEP, value: "1"}, {name: DROP, value: "2"}]
        ports: [{containerPort: 80, name: http}, {containerPort: 9090, name: metrics}]
      - name: b
        image: busybox
`)), 0o644)
	if out := kubectl(t, s, "apply", "-n", ns, "-f", file); strings.TrimSpace(out) != "deployment.apps/web created" {
		t.Fatalf("first apply: %q", out)
	}
	os.WriteFile(file, []byte(manifest(`      - name: a
        image: nginx:1.28
        env: [{name: KEEP, value: "1"}, {name: NEW, value: "3"}]
        ports: [{containerPort: 8080, name: http}]
      - name: c
        image: redis
`)), 0o644)
	if out := kubectl(t, s, "apply", "-n", ns, "-f", file); strings.TrimSpace(out) != "deployment.apps/web configured" {
		t.Fatalf("second apply: %q", out)
	}
	var d appsv1.Deployment
	kubectlJSON(t, s, &d, "get", "deployment", "web", "-n", ns)
	cs := d.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[0].Name != "a" || cs[1].Name != "c" || cs[0].Image != "nginx:1.28" {
		t.Fatalf("containers after apply: %+v", cs)
	}
	if got := envString(cs[0].Env); got != "KEEP=1 NEW=3" {
		t.Errorf("env %s, want KEEP=1 NEW=3", got)
	}
	if len(cs[0].Ports) != 1 || cs[0].Ports[0].ContainerPort != 8080 || cs[0].Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("ports %+v", cs[0].Ports)
	}
	if d.Generation != 2 || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType {
		t.Errorf("generation %d replicas %d strategy %s", d.Generation, *d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	if out := kubectl(t, s, "apply", "-n", ns, "-f", file); strings.TrimSpace(out) != "deployment.apps/web unchanged" {
		t.Errorf("third apply: %q", out)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testKubectlServerSideApply applies twice with kubectl --server-side, then
// as another manager: a conflict naming the field and manager, then forced.
func testKubectlServerSideApply(t *testing.T, s *framework.Server, ns string) {
	file := filepath.Join(t.TempDir(), "cm.yaml")
	write := func(color string) {
		os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {color: "+color+", size: big}\n"), 0o644)
	}
	write("blue")
	for i := 0; i < 2; i++ {
		if out := kubectl(t, s, "apply", "--server-side", "-n", ns, "-f", file); strings.TrimSpace(out) != "configmap/ssa serverside-applied" {
			t.Fatalf("apply %d: %q", i, out)
		}
	}
	write("red")
	if msg := kubectlFails(t, s, "apply", "--server-side", "--field-manager=other", "-n", ns, "-f", file); !strings.Contains(msg, `Apply failed with 1 conflict: conflict with "kubectl": .data.color`) {
		t.Errorf("conflict: %s", msg)
	}
	kubectl(t, s, "apply", "--server-side", "--field-manager=other", "--force-conflicts", "-n", ns, "-f", file)
	if out := kubectl(t, s, "get", "cm", "ssa", "-n", ns, "-o", "jsonpath={.data.color}"); out != "red" {
		t.Errorf("color %q after forced apply", out)
	}
}
