package filters

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/capstan-io/capstan/auth"
)

func TestAttributes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, target string
		want                 auth.Attributes
	}{
		{"namespaced list", "GET", "/api/v1/namespaces/demo/pods",
			auth.Attributes{ResourceRequest: true, Verb: "list", APIVersion: "v1", Namespace: "demo", Resource: "pods"}},
		{"subresource", "PUT", "/apis/apps/v1/namespaces/demo/deployments/web/scale",
			auth.Attributes{ResourceRequest: true, Verb: "update", APIGroup: "apps", APIVersion: "v1", Namespace: "demo", Resource: "deployments", Subresource: "scale", Name: "web"}},
		{"a namespace is in itself", "GET", "/api/v1/namespaces/demo",
			auth.Attributes{ResourceRequest: true, Verb: "get", APIVersion: "v1", Namespace: "demo", Resource: "namespaces", Name: "demo"}},
		{"watch of one object by name", "GET", "/api/v1/namespaces/demo/pods?watch=1&fieldSelector=metadata.name%3Dweb",
			auth.Attributes{ResourceRequest: true, Verb: "watch", APIVersion: "v1", Namespace: "demo", Resource: "pods", Name: "web"}},
		{"a compound field selector names nothing", "GET", "/api/v1/pods?fieldSelector=metadata.name%3Dweb,spec.nodeName%3Dn1",
			auth.Attributes{ResourceRequest: true, Verb: "list", APIVersion: "v1", Resource: "pods"}},
		{"discovery is a path", "GET", "/apis/apps/v1", auth.Attributes{Verb: "get", Path: "/apis/apps/v1"}},
		{"metrics is a path", "GET", "/metrics", auth.Attributes{Verb: "get", Path: "/metrics"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Attributes(httptest.NewRequest(tc.method, tc.target, nil))
			tc.want.User = auth.Anonymous()
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Attributes = %+v\nwant         %+v", got, tc.want)
			}
		})
	}
}
