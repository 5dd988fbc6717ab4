package apiserver_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
)

// TestAdmissionDefaults checks Kubernetes' defaults on create, and that an
// update that leaves the defaulted fields out changes nothing.
func TestAdmissionDefaults(t *testing.T) {
	s := setupServer(t)
	ctx := context.Background()
	if _, err := s.Client.Resource("", "v1", "namespaces").Create(ctx, namespace("def")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, body string
		want             map[string]any // dotted path → value
	}{
		{"pod", "/api/v1/namespaces/def/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"nginx"},{"name":"b","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}`,
			map[string]any{
				"spec.restartPolicy": "Always", "spec.terminationGracePeriodSeconds": 30.0, "spec.dnsPolicy": "ClusterFirst", "spec.schedulerName": "default-scheduler",
				"spec.containers.0.imagePullPolicy": "Always", "spec.containers.1.imagePullPolicy": "IfNotPresent",
				"spec.containers.0.terminationMessagePath": "/dev/termination-log", "spec.containers.0.terminationMessagePolicy": "File",
				"spec.containers.1.ports.0.protocol": "TCP",
			}},
		{"deployment", "/apis/apps/v1/namespaces/def/deployments", deployJSON,
			map[string]any{
				"spec.replicas": 1.0, "spec.strategy.type": "RollingUpdate", "spec.strategy.rollingUpdate.maxSurge": "25%", "spec.strategy.rollingUpdate.maxUnavailable": "25%",
				"spec.revisionHistoryLimit": 10.0, "spec.progressDeadlineSeconds": 600.0, "spec.template.spec.restartPolicy": "Always",
				"spec.template.spec.containers.0.imagePullPolicy": "Always",
			}},
		{"replicaset", "/apis/apps/v1/namespaces/def/replicasets", rsJSON,
			map[string]any{"spec.replicas": 1.0, "spec.template.spec.dnsPolicy": "ClusterFirst"}},
		{"service", "/api/v1/namespaces/def/services", svcJSON,
			map[string]any{"spec.type": "ClusterIP", "spec.sessionAffinity": "None", "spec.ports.0.protocol": "TCP", "spec.ports.0.targetPort": 80.0}},
		{"secret", "/api/v1/namespaces/def/secrets", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"k":"v"}}`,
			map[string]any{"type": "Opaque", "data.k": "dg==", "stringData": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b, _ := rawH(t, s, "POST", tc.path, "application/json", tc.body)
			if code != 201 {
				t.Fatalf("create: %d %s", code, b)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			for path, want := range tc.want {
				if v := dig(got, path); !reflect.DeepEqual(v, want) {
					t.Errorf("%s = %#v, want %#v", path, v, want)
				}
			}
			// PUT the original body again: the defaults keep it equal, so nothing is written.
			o, _ := api.Decode([]byte(tc.body))
			o.Meta()["resourceVersion"] = got["metadata"].(map[string]any)["resourceVersion"]
			code, b2, _ := rawH(t, s, "PUT", tc.path+"/"+o.Name(), "application/json", string(mustJSON(o)))
			if code != 200 {
				t.Fatalf("update: %d %s", code, b2)
			}
			var again map[string]any
			json.Unmarshal(b2, &again)
			if rv, want := dig(again, "metadata.resourceVersion"), dig(got, "metadata.resourceVersion"); rv != want {
				t.Errorf("resourceVersion %v after a no-op update, want %v", rv, want)
			}
		})
	}
}

// dig follows a dotted path through maps and lists (numeric segments index lists).
func dig(v any, path string) any {
	for _, seg := range splitDots(path) {
		switch t := v.(type) {
		case map[string]any:
			v = t[seg]
		case []any:
			i := 0
			for _, c := range seg {
				i = i*10 + int(c-'0')
			}
			if i >= len(t) {
				return nil
			}
			v = t[i]
		default:
			return nil
		}
	}
	return v
}

func splitDots(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// TestFieldValidation checks the three fieldValidation modes on unknown fields.
func TestFieldValidation(t *testing.T) {
	s := setupServer(t)
	if _, err := s.Client.Resource("", "v1", "namespaces").Create(context.Background(), namespace("fv")); err != nil {
		t.Fatal(err)
	}
	body := func(name string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","colour":"red"},"data":{"a":"1"},"extra":{"x":1}}`
	}
	for _, tc := range []struct {
		name, query  string
		wantCode     int
		wantWarnings []string
	}{
		{"default is Warn", "", 201, []string{`299 - "unknown field \"extra\""`, `299 - "unknown field \"metadata.colour\""`}},
		{"Warn", "?fieldValidation=Warn", 201, []string{`299 - "unknown field \"extra\""`, `299 - "unknown field \"metadata.colour\""`}},
		{"Ignore", "?fieldValidation=Ignore", 201, nil},
		{"Strict", "?fieldValidation=Strict", 400, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "cm-" + map[string]string{"": "default", "?fieldValidation=Warn": "warn", "?fieldValidation=Ignore": "ignore", "?fieldValidation=Strict": "strict"}[tc.query]
			code, b, h := rawH(t, s, "POST", "/api/v1/namespaces/fv/configmaps"+tc.query, "application/json", body(name))
			if code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", code, tc.wantCode, b)
			}
			if got := h.Values("Warning"); !reflect.DeepEqual(got, tc.wantWarnings) {
				t.Errorf("warnings %q, want %q", got, tc.wantWarnings)
			}
			if code != 201 {
				if st := status(t, b); st.Message != `strict decoding error: unknown field "extra", unknown field "metadata.colour"` {
					t.Errorf("message %q", st.Message)
				}
				return
			}
			var o map[string]any
			json.Unmarshal(b, &o)
			if o["extra"] != nil || dig(o, "metadata.colour") != nil {
				t.Errorf("unknown fields were stored: %s", b)
			}
		})
	}
}
