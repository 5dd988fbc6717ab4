package endpoints

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
)

// protobufType is the media type kubectl and client-go use to send built-in kinds.
const protobufType = "application/vnd.kubernetes.protobuf"

// protoScheme knows the Go types of the built-in kinds, to read protobuf request bodies.
var protoScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, coordinationv1.AddToScheme,
		rbacv1.AddToScheme, authenticationv1.AddToScheme, authorizationv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}()

var protoSerializer = protobuf.NewSerializer(protoScheme, protoScheme)

// protobufToJSON converts a protobuf-encoded built-in object to JSON.
func protobufToJSON(body []byte) ([]byte, error) {
	obj, gvk, err := protoSerializer.Decode(body, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("decoding protobuf body: %w", err)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	// Typed objects do not carry their kind once decoded; put it back.
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	return json.Marshal(m)
}
