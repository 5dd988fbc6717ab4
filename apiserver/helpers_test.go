package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/apiserver/client"
)

// raw sends one request with the admin token and returns the code and body.
func raw(t *testing.T, s *apiservertest.Server, method, path, contentType string, body []byte) (int, []byte) {
	t.Helper()
	code, b, _ := rawH(t, s, method, path, contentType, string(body))
	return code, b
}

// rawH sends one request with the admin token and returns the code, body and headers.
func rawH(t *testing.T, s *apiservertest.Server, method, path, contentType, body string) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := s.Client.HTTPClient().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// status decodes a Status body.
func status(t *testing.T, b []byte) api.Status {
	t.Helper()
	var st api.Status
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("not a Status: %v: %s", err, b)
	}
	return st
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func configMap(name string, data map[string]any) api.Object {
	return api.Object{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name}, "data": data}
}

func namespace(name string) api.Object {
	return api.Object{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}
}

// setup starts a hub with namespace ns.
func setup(t *testing.T, ns string) (*apiservertest.Server, *client.ResourceClient) {
	t.Helper()
	s := apiservertest.Start(t)
	if _, err := s.Client.Resource("", "v1", "namespaces").Create(context.Background(), namespace(ns)); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return s, s.Client.Resource("", "v1", "configmaps").Namespace(ns)
}

func setupServer(t *testing.T) *apiservertest.Server {
	t.Helper()
	return apiservertest.Start(t)
}

func pod(name string) api.Object {
	return api.Object{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name, "labels": map[string]any{"app": name}},
		"spec": map[string]any{"containers": []any{map[string]any{"name": "main", "image": "busybox"}}}}
}

func rawReq(method, path, query string, body any) client.Request {
	return client.Request{Method: method, Path: path, Query: query, Body: mustJSON(body)}
}

func setupServerB(b *testing.B) *apiservertest.Server {
	b.Helper()
	return apiservertest.Start(b)
}

var clientListAll = client.ListOptions{}

func clientOpts(labels, fields string) client.ListOptions {
	return client.ListOptions{LabelSelector: labels, FieldSelector: fields}
}
