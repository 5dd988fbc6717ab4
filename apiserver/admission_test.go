package apiserver_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
)

// Minimal valid objects, as JSON, to start the bad ones from.
const (
	podJSON    = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}`
	deployJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	rsJSON     = `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"r"},"spec":{"selector":{"matchLabels":{"app":"r"}},"template":{"metadata":{"labels":{"app":"r"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`
	svcJSON    = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"selector":{"app":"s"},"ports":[{"port":80}]}}`
)

// edit applies JSON merge-patch style edits to a JSON document, for building bad objects.
func edit(t *testing.T, doc string, patch string) string {
	t.Helper()
	o, err := api.Decode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	p, err := api.Decode([]byte(patch))
	if err != nil {
		t.Fatalf("patch %s: %v", patch, err)
	}
	mergeInto(o, p)
	return string(mustJSON(o))
}

func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		if vm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeInto(dm, vm)
				continue
			}
		}
		dst[k] = v
	}
}

type cause struct{ Field, Reason, Message string }

// TestAdmissionRejects sends invalid objects of every kind and checks the exact
// code, reason and causes, and that nothing was stored.
func TestAdmissionRejects(t *testing.T) {
	s := setupServer(t)
	ctx := context.Background()
	if _, err := s.Client.Resource("", "v1", "namespaces").Create(ctx, namespace("adm")); err != nil {
		t.Fatal(err)
	}
	const (
		pods    = "/api/v1/namespaces/adm/pods"
		deploys = "/apis/apps/v1/namespaces/adm/deployments"
		rss     = "/apis/apps/v1/namespaces/adm/replicasets"
		svcs    = "/api/v1/namespaces/adm/services"
		cms     = "/api/v1/namespaces/adm/configmaps"
		secrets = "/api/v1/namespaces/adm/secrets"
		leases  = "/apis/coordination.k8s.io/v1/namespaces/adm/leases"
	)
	// Objects the update cases change.
	for _, c := range []struct{ path, body string }{
		{pods, edit(t, podJSON, `{"metadata":{"name":"live"}}`)},
		{deploys, edit(t, deployJSON, `{"metadata":{"name":"live"}}`)},
		{rss, edit(t, rsJSON, `{"metadata":{"name":"live"}}`)},
		{cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"frozen"},"immutable":true,"data":{"a":"1"}}`},
		{secrets, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"frozen"},"immutable":true,"stringData":{"a":"1"}}`},
	} {
		if code, b, _ := rawH(t, s, "POST", c.path, "application/json", c.body); code != 201 {
			t.Fatalf("creating %s: %d %s", c.path, code, b)
		}
	}
	const merge = "application/merge-patch+json"
	for _, tc := range []struct {
		name, method, path, contentType, body string
		wantCode                              int
		wantReason                            string
		wantMessage                           string // substring
		wantCauses                            []cause
	}{
		// Pods.
		{name: "pod without containers", body: edit(t, podJSON, `{"spec":{"containers":[]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers", "FieldValueRequired", "Required value"}}},
		{name: "pod without spec", body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`, path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers", "FieldValueRequired", "Required value"}}},
		{name: "container without image", body: edit(t, podJSON, `{"spec":{"containers":[{"name":"c"}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers[0].image", "FieldValueRequired", "Required value"}}},
		{name: "container without name", body: edit(t, podJSON, `{"spec":{"containers":[{"image":"nginx"}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers[0].name", "FieldValueRequired", "Required value"}}},
		{name: "duplicate container names", body: edit(t, podJSON, `{"spec":{"containers":[{"name":"c","image":"a"},{"name":"c","image":"b"}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers[1].name", "FieldValueDuplicate", `Duplicate value: "c"`}}},
		{name: "container name not a DNS label", body: edit(t, podJSON, `{"spec":{"containers":[{"name":"Web_1","image":"a"}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers[0].name", "FieldValueInvalid", `Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}}},
		{name: "bad restartPolicy", body: edit(t, podJSON, `{"spec":{"restartPolicy":"Sometimes"}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.restartPolicy", "FieldValueNotSupported", `Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"`}}},
		{name: "bad dnsPolicy", body: edit(t, podJSON, `{"spec":{"dnsPolicy":"Google"}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.dnsPolicy", "FieldValueNotSupported", `Unsupported value: "Google": supported values: "ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"`}}},
		{name: "bad imagePullPolicy", body: edit(t, podJSON, `{"spec":{"containers":[{"name":"c","image":"a","imagePullPolicy":"Maybe"}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers[0].imagePullPolicy", "FieldValueNotSupported", `Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"`}}},
		{name: "negative grace period", body: edit(t, podJSON, `{"spec":{"terminationGracePeriodSeconds":-5}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.terminationGracePeriodSeconds", "FieldValueInvalid", "Invalid value: -5: must be greater than or equal to 0"}}},
		{name: "container port out of range", body: edit(t, podJSON, `{"spec":{"containers":[{"name":"c","image":"a","ports":[{"containerPort":70000}]}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers[0].ports[0].containerPort", "FieldValueInvalid", "Invalid value: 70000: must be less than or equal to 65535"}}},
		{name: "bad port protocol", body: edit(t, podJSON, `{"spec":{"containers":[{"name":"c","image":"a","ports":[{"containerPort":80,"protocol":"HTTP"}]}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers[0].ports[0].protocol", "FieldValueNotSupported", `Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"`}}},
		{name: "bad cpu quantity", body: edit(t, podJSON, `{"spec":{"containers":[{"name":"c","image":"a","resources":{"requests":{"cpu":"lots"}}}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{{"spec.containers[0].resources.requests[cpu]", "FieldValueInvalid", `Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`}}},
		{name: "two problems at once", body: edit(t, podJSON, `{"spec":{"restartPolicy":"No","containers":[{"name":"c"}]}}`), path: pods, wantCode: 422,
			wantCauses: []cause{
				{"spec.restartPolicy", "FieldValueNotSupported", `Unsupported value: "No": supported values: "Always", "Never", "OnFailure"`},
				{"spec.containers[0].image", "FieldValueRequired", "Required value"},
			}},
		{name: "pod name not a DNS subdomain", body: edit(t, podJSON, `{"metadata":{"name":"Bad_Name"}}`), path: pods, wantCode: 422,
			wantMessage: `Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"`},
		{name: "label value too long", body: edit(t, podJSON, `{"metadata":{"labels":{"a":"`+strings.Repeat("x", 64)+`"}}}`), path: pods, wantCode: 422,
			wantMessage: "must be no more than 63 bytes"},
		{name: "pod: string where a list belongs", body: edit(t, podJSON, `{"spec":{"containers":"nginx"}}`), path: pods, wantCode: 400, wantReason: "BadRequest",
			wantMessage: `Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal string into Go struct field spec.containers of type array`},
		{name: "pod: number where a string belongs", body: edit(t, podJSON, `{"spec":{"containers":[{"name":"c","image":5}]}}`), path: pods, wantCode: 400, wantReason: "BadRequest",
			wantMessage: "spec.containers[0].image"},
		{name: "pod: strict unknown fields", path: pods + "?fieldValidation=Strict", body: edit(t, podJSON, `{"spec":{"colour":"red","containers":[{"name":"c","image":"a","sizee":1}]}}`), wantCode: 400, wantReason: "BadRequest",
			wantMessage: `strict decoding error: unknown field "spec.colour", unknown field "spec.containers[0].sizee"`},
		{name: "bad fieldValidation value", path: pods + "?fieldValidation=Loud", body: podJSON, wantCode: 400, wantReason: "BadRequest", wantMessage: "fieldValidation"},
		{name: "pod update changes a container name", method: "PUT", path: pods + "/live", body: edit(t, podJSON, `{"metadata":{"name":"live"},"spec":{"containers":[{"name":"other","image":"nginx:1.27"}]}}`), wantCode: 422,
			wantCauses: []cause{{"spec", "FieldValueForbidden", "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"}}},
		{name: "pod patch changes restartPolicy", method: "PATCH", contentType: merge, path: pods + "/live", body: `{"spec":{"restartPolicy":"Never"}}`, wantCode: 422,
			wantMessage: "pod updates may not change fields"},
		// Deployments and ReplicaSets.
		{name: "negative replicas", body: edit(t, deployJSON, `{"spec":{"replicas":-1}}`), path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.replicas", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"}}},
		{name: "replicas as a string", body: edit(t, deployJSON, `{"spec":{"replicas":"three"}}`), path: deploys, wantCode: 400, wantReason: "BadRequest",
			wantMessage: `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field spec.replicas of type int32`},
		{name: "replicas as a fraction", body: edit(t, deployJSON, `{"spec":{"replicas":1.5}}`), path: deploys, wantCode: 400, wantReason: "BadRequest", wantMessage: "spec.replicas"},
		{name: "deployment without selector", body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`, path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.selector", "FieldValueRequired", "Required value"}}},
		{name: "selector does not match template", body: edit(t, deployJSON, `{"spec":{"selector":{"matchLabels":{"app":"other"}}}}`), path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.template.metadata.labels", "FieldValueInvalid", "Invalid value: {\"app\":\"d\"}: `selector` does not match template `labels`"}}},
		{name: "deployment template without containers", body: edit(t, deployJSON, `{"spec":{"template":{"spec":{"containers":[]}}}}`), path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.template.spec.containers", "FieldValueRequired", "Required value"}}},
		{name: "deployment template container without image", body: edit(t, deployJSON, `{"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}}`), path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.template.spec.containers[0].image", "FieldValueRequired", "Required value"}}},
		{name: "deployment template restartPolicy Never", body: edit(t, deployJSON, `{"spec":{"template":{"spec":{"restartPolicy":"Never"}}}}`), path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.template.spec.restartPolicy", "FieldValueNotSupported", `Unsupported value: "Never": supported values: "Always"`}}},
		{name: "bad strategy type", body: edit(t, deployJSON, `{"spec":{"strategy":{"type":"Blue"}}}`), path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.strategy.type", "FieldValueNotSupported", `Unsupported value: "Blue": supported values: "Recreate", "RollingUpdate"`}}},
		{name: "Recreate with rollingUpdate", body: edit(t, deployJSON, `{"spec":{"strategy":{"type":"Recreate","rollingUpdate":{"maxSurge":1}}}}`), path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.strategy.rollingUpdate", "FieldValueForbidden", "Forbidden: may not be specified when strategy `type` is 'Recreate'"}}},
		{name: "negative revisionHistoryLimit", body: edit(t, deployJSON, `{"spec":{"revisionHistoryLimit":-2}}`), path: deploys, wantCode: 422,
			wantCauses: []cause{{"spec.revisionHistoryLimit", "FieldValueInvalid", "Invalid value: -2: must be greater than or equal to 0"}}},
		{name: "deployment selector is immutable", method: "PATCH", contentType: merge, path: deploys + "/live", body: `{"spec":{"selector":{"matchLabels":{"app":"d","tier":"x"}},"template":{"metadata":{"labels":{"tier":"x"}}}}}`, wantCode: 422,
			wantCauses: []cause{{"spec.selector", "FieldValueInvalid", `Invalid value: "app=d,tier=x": field is immutable`}}},
		{name: "deployment update to negative replicas", method: "PATCH", contentType: merge, path: deploys + "/live", body: `{"spec":{"replicas":-3}}`, wantCode: 422,
			wantCauses: []cause{{"spec.replicas", "FieldValueInvalid", "Invalid value: -3: must be greater than or equal to 0"}}},
		{name: "replicaset negative replicas", body: edit(t, rsJSON, `{"spec":{"replicas":-1}}`), path: rss, wantCode: 422,
			wantCauses: []cause{{"spec.replicas", "FieldValueInvalid", "Invalid value: -1: must be greater than or equal to 0"}}},
		{name: "replicaset selector is immutable", method: "PATCH", contentType: merge, path: rss + "/live", body: `{"spec":{"selector":{"matchLabels":{"app":"q"}},"template":{"metadata":{"labels":{"app":"q"}}}}}`, wantCode: 422,
			wantCauses: []cause{{"spec.selector", "FieldValueInvalid", `Invalid value: "app=q": field is immutable`}}},
		{name: "replicaset strict unknown field", path: rss + "?fieldValidation=Strict", body: edit(t, rsJSON, `{"spec":{"paused":true}}`), wantCode: 400, wantReason: "BadRequest",
			wantMessage: `strict decoding error: unknown field "spec.paused"`},
		// Services.
		{name: "service without ports", body: edit(t, svcJSON, `{"spec":{"ports":[]}}`), path: svcs, wantCode: 422,
			wantCauses: []cause{{"spec.ports", "FieldValueRequired", "Required value"}}},
		{name: "service bad type", body: edit(t, svcJSON, `{"spec":{"type":"Public"}}`), path: svcs, wantCode: 422,
			wantCauses: []cause{{"spec.type", "FieldValueNotSupported", `Unsupported value: "Public": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`}}},
		{name: "service port zero", body: edit(t, svcJSON, `{"spec":{"ports":[{"port":0}]}}`), path: svcs, wantCode: 422,
			wantCauses: []cause{{"spec.ports[0].port", "FieldValueInvalid", "Invalid value: 0: must be greater than or equal to 1"}}},
		{name: "service name not a DNS-1035 label", body: edit(t, svcJSON, `{"metadata":{"name":"1web"}}`), path: svcs, wantCode: 422,
			wantMessage: `metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character`},
		{name: "service unnamed ports", body: edit(t, svcJSON, `{"spec":{"ports":[{"port":80},{"port":443}]}}`), path: svcs, wantCode: 422,
			wantCauses: []cause{{"spec.ports[0].name", "FieldValueRequired", "Required value"}, {"spec.ports[1].name", "FieldValueRequired", "Required value"}}},
		{name: "service bad sessionAffinity", body: edit(t, svcJSON, `{"spec":{"sessionAffinity":"Sticky"}}`), path: svcs, wantCode: 422,
			wantCauses: []cause{{"spec.sessionAffinity", "FieldValueNotSupported", `Unsupported value: "Sticky": supported values: "ClientIP", "None"`}}},
		// ConfigMaps, Secrets, Leases.
		{name: "configmap bad data key", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a b":"1"}}`, path: cms, wantCode: 422,
			wantCauses: []cause{{"data[a b]", "FieldValueInvalid", `Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`}}},
		{name: "configmap data value not a string", body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":1}}`, path: cms, wantCode: 400, wantReason: "BadRequest",
			wantMessage: "data[a]"},
		{name: "immutable configmap data change", method: "PATCH", contentType: merge, path: cms + "/frozen", body: `{"data":{"a":"2"}}`, wantCode: 422,
			wantCauses: []cause{{"data", "FieldValueForbidden", "Forbidden: field is immutable when `immutable` is set"}}},
		{name: "immutable configmap unset", method: "PATCH", contentType: merge, path: cms + "/frozen", body: `{"immutable":false}`, wantCode: 422,
			wantCauses: []cause{{"immutable", "FieldValueForbidden", "Forbidden: field is immutable when `immutable` is set"}}},
		{name: "immutable secret data change", method: "PATCH", contentType: merge, path: secrets + "/frozen", body: `{"stringData":{"a":"2"}}`, wantCode: 422,
			wantCauses: []cause{{"data", "FieldValueForbidden", "Forbidden: field is immutable when `immutable` is set"}}},
		{name: "lease duration zero", body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"leaseDurationSeconds":0}}`, path: leases, wantCode: 422,
			wantCauses: []cause{{"spec.leaseDurationSeconds", "FieldValueInvalid", "Invalid value: 0: must be greater than or equal to 1"}}},
		{name: "lease holder as a number", body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":7}}`, path: leases, wantCode: 400, wantReason: "BadRequest",
			wantMessage: "spec.holderIdentity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = "POST"
			}
			ct := tc.contentType
			if ct == "" {
				ct = "application/json"
			}
			code, b, _ := rawH(t, s, method, tc.path, ct, tc.body)
			if code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", code, tc.wantCode, b)
			}
			st := status(t, b)
			reason := tc.wantReason
			if reason == "" {
				reason = "Invalid"
			}
			if st.Reason != reason {
				t.Errorf("reason %q, want %q", st.Reason, reason)
			}
			if !strings.Contains(st.Message, tc.wantMessage) {
				t.Errorf("message %q, want it to contain %q", st.Message, tc.wantMessage)
			}
			if tc.wantCauses != nil {
				var got []cause
				if st.Details != nil {
					for _, c := range st.Details.Causes {
						got = append(got, cause{c.Field, c.Type, c.Message})
					}
				}
				if !reflect.DeepEqual(got, tc.wantCauses) {
					t.Errorf("causes:\n got %q\nwant %q", got, tc.wantCauses)
				}
			}
		})
	}
	// Nothing was stored by the failed creates.
	for _, p := range []string{pods + "/p", deploys + "/d", rss + "/r", svcs + "/s", cms + "/c", leases + "/l"} {
		if code, _, _ := rawH(t, s, "GET", p, "", ""); code != 404 {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
}
