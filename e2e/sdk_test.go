package e2e

import (
	"context"
	"net/http"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/capstan-io/capstan/e2e/framework"
	"github.com/capstan-io/capstan/openapi/sdk"
)

// TestGeneratedSDK drives a running server with the Go SDK that oapi-codegen
// generated from openapi/capstan.openapi.json: create, get, list, update and
// delete, plus a defaulted Deployment and a 422 for an invalid one.
func TestGeneratedSDK(t *testing.T) {
	s := startServer(t)
	cfg := framework.RestConfig(t, s)
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sdk.NewClientWithResponses(cfg.Host, sdk.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "default"
	str := func(s string) *string { return &s }

	created, err := c.CreateCoreV1NamespacedConfigMapWithResponse(ctx, ns, nil, sdk.IoK8sApiCoreV1ConfigMap{
		ApiVersion: str("v1"), Kind: str("ConfigMap"),
		Metadata: &sdk.IoK8sApimachineryPkgApisMetaV1ObjectMeta{Name: str("sdk")},
		Data:     &map[string]string{"color": "blue"},
	})
	if err != nil || created.StatusCode() != http.StatusCreated {
		t.Fatalf("create: %v %s", err, created.Body)
	}
	got, err := c.ReadCoreV1NamespacedConfigMapWithResponse(ctx, ns, "sdk")
	if err != nil || got.JSON200 == nil || (*got.JSON200.Data)["color"] != "blue" {
		t.Fatalf("get: %v %s", err, got.Body)
	}
	cm := *got.JSON200
	(*cm.Data)["color"] = "red"
	updated, err := c.ReplaceCoreV1NamespacedConfigMapWithResponse(ctx, ns, "sdk", nil, cm)
	if err != nil || updated.JSON200 == nil || *updated.JSON200.Metadata.ResourceVersion == *cm.Metadata.ResourceVersion {
		t.Fatalf("update: %v %s", err, updated.Body)
	}
	list, err := c.ListCoreV1NamespacedConfigMapWithResponse(ctx, ns, &sdk.ListCoreV1NamespacedConfigMapParams{FieldSelector: str("metadata.name=sdk")})
	if err != nil || list.JSON200 == nil || len(list.JSON200.Items) != 1 || (*list.JSON200.Items[0].Data)["color"] != "red" {
		t.Fatalf("list: %v %s", err, list.Body)
	}
	del, err := c.DeleteCoreV1NamespacedConfigMapWithResponse(ctx, ns, "sdk")
	if err != nil || del.StatusCode() != http.StatusOK {
		t.Fatalf("delete: %v %s", err, del.Body)
	}
	if gone, _ := c.ReadCoreV1NamespacedConfigMapWithResponse(ctx, ns, "sdk"); gone.StatusCode() != http.StatusNotFound {
		t.Fatalf("get after delete: %d", gone.StatusCode())
	}

	labels := &map[string]string{"app": "web"}
	d := sdk.IoK8sApiAppsV1Deployment{
		ApiVersion: str("apps/v1"), Kind: str("Deployment"),
		Metadata: &sdk.IoK8sApimachineryPkgApisMetaV1ObjectMeta{Name: str("web")},
		Spec: &sdk.IoK8sApiAppsV1DeploymentSpec{
			Selector: &sdk.IoK8sApimachineryPkgApisMetaV1LabelSelector{MatchLabels: labels},
			Template: &sdk.IoK8sApiCoreV1PodTemplateSpec{
				Metadata: &sdk.IoK8sApimachineryPkgApisMetaV1ObjectMeta{Labels: labels},
				Spec:     &sdk.IoK8sApiCoreV1PodSpec{Containers: &[]sdk.IoK8sApiCoreV1Container{{Name: str("web"), Image: str("nginx")}}},
			},
		},
	}
	dr, err := c.CreateAppsV1NamespacedDeploymentWithResponse(ctx, ns, nil, d)
	if err != nil || dr.JSON201 == nil || *dr.JSON201.Spec.Replicas != 1 || *dr.JSON201.Spec.RevisionHistoryLimit != 10 {
		t.Fatalf("create deployment: %v %s", err, dr.Body)
	}
	neg := int32(-1)
	d.Metadata.Name, d.Spec.Replicas = str("bad"), &neg
	if bad, err := c.CreateAppsV1NamespacedDeploymentWithResponse(ctx, ns, nil, d); err != nil || bad.StatusCode() != http.StatusUnprocessableEntity {
		t.Fatalf("invalid deployment: %v %d %s", err, bad.StatusCode(), bad.Body)
	}
}
