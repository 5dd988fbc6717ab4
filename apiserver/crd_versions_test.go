package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apiservertest"
	"github.com/capstan-io/capstan/storage/etcd3"
)

// twoVersionCRD serves widgets in v1 (the storage version) and v2, with one schema.
const twoVersionCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced","conversion":{"strategy":"None"},
  "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
  "versions":[
   {"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","minimum":1}}}}}}},
   {"name":"v2","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","minimum":1}}}}}}}]}}`

// TestCRDVersions checks a CRD served in two versions sharing one storage:
// discovery lists both (v2 preferred), an object written through either
// version reads through the other with that version's apiVersion (get, list,
// watch, update), it is stored once under the storage version, and schema
// validation applies through both.
func TestCRDVersions(t *testing.T) {
	s := setupServer(t)
	if code, b, _ := rawH(t, s, "POST", crdsPath, "application/json", twoVersionCRD); code != 201 {
		t.Fatalf("create CRD: %d %s", code, b)
	}
	const v1, v2 = "/apis/example.com/v1/namespaces/default/widgets", "/apis/example.com/v2/namespaces/default/widgets"
	waitFor(t, "both versions served", func() bool {
		c1, _, _ := rawH(t, s, "GET", v1, "", "")
		c2, _, _ := rawH(t, s, "GET", v2, "", "")
		return c1 == 200 && c2 == 200
	})

	_, b, _ := rawH(t, s, "GET", "/apis/example.com", "", "")
	var grp api.APIGroup
	if err := json.Unmarshal(b, &grp); err != nil || len(grp.Versions) != 2 || grp.Versions[0].Version != "v2" || grp.Versions[1].Version != "v1" || grp.PreferredVersion.Version != "v2" {
		t.Errorf("discovery of the group: %s", b)
	}
	for _, v := range []string{"v1", "v2"} {
		if _, b, _ := rawH(t, s, "GET", "/apis/example.com/"+v, "", ""); !strings.Contains(string(b), `"name":"widgets"`) {
			t.Errorf("discovery of %s: %s", v, b)
		}
	}

	apiVersionOf := func(b []byte) string {
		t.Helper()
		o, err := api.Decode(b)
		if err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		return o.APIVersion()
	}
	for _, tc := range []struct{ name, writeVia, readVia, writeVersion, readVersion string }{
		{"a", v1, v2, "example.com/v1", "example.com/v2"},
		{"b", v2, v1, "example.com/v2", "example.com/v1"},
	} {
		code, b, _ := rawH(t, s, "POST", tc.writeVia, "application/json", `{"apiVersion":"`+tc.writeVersion+`","kind":"Widget","metadata":{"name":"`+tc.name+`"},"spec":{"size":1}}`)
		if code != 201 || apiVersionOf(b) != tc.writeVersion {
			t.Fatalf("create %s through %s: %d %s", tc.name, tc.writeVersion, code, b)
		}
		if code, b, _ := rawH(t, s, "GET", tc.readVia+"/"+tc.name, "", ""); code != 200 || apiVersionOf(b) != tc.readVersion {
			t.Errorf("get %s through %s: %d %s", tc.name, tc.readVersion, code, b)
		}
	}
	for _, tc := range []struct{ path, version string }{{v1, "example.com/v1"}, {v2, "example.com/v2"}} {
		_, b, _ := rawH(t, s, "GET", tc.path, "", "")
		var l struct {
			APIVersion string            `json:"apiVersion"`
			Items      []json.RawMessage `json:"items"`
		}
		json.Unmarshal(b, &l)
		if l.APIVersion != tc.version || len(l.Items) != 2 || apiVersionOf(l.Items[0]) != tc.version || apiVersionOf(l.Items[1]) != tc.version {
			t.Errorf("list through %s: %s", tc.version, b)
		}
	}

	// Both objects are stored under the storage version, v1.
	cli, err := etcd3.NewClient([]string{s.Etcd.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for _, name := range []string{"a", "b"} {
		resp, err := cli.Get(context.Background(), "/registry/example.com/widgets/default/"+name)
		if err != nil || len(resp.Kvs) != 1 || !strings.Contains(string(resp.Kvs[0].Value), `"apiVersion":"example.com/v1"`) {
			t.Errorf("stored %s: %v %v", name, err, resp)
		}
	}

	// An update through v2 of an object written through v1; its answer and a
	// watch through v2 carry v2.
	_, b, _ = rawH(t, s, "GET", v2+"/a", "", "")
	cur, _ := api.Decode(b)
	api.SetNested(cur, 2, "spec", "size")
	code, b, _ := rawH(t, s, "PUT", v2+"/a", "application/json", string(mustJSON(cur)))
	if code != 200 || apiVersionOf(b) != "example.com/v2" || !strings.Contains(string(b), `"size":2`) {
		t.Errorf("update through v2: %d %s", code, b)
	}
	if code, b, _ := rawH(t, s, "PATCH", v1+"/a", "application/merge-patch+json", `{"spec":{"size":3}}`); code != 200 || apiVersionOf(b) != "example.com/v1" {
		t.Errorf("patch through v1: %d %s", code, b)
	}
	if code, b, _ := rawH(t, s, "PATCH", v2+"/b", "application/merge-patch+json", `{"spec":{"size":0}}`); code != 422 || !strings.Contains(string(b), "must be greater than or equal to 1") {
		t.Errorf("invalid patch through v2: %d %s", code, b)
	}
	resp, err := watchRequest(t, s, v2+"?watch=1&resourceVersion=0&timeoutSeconds=5")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for range 2 {
		if !sc.Scan() {
			t.Fatalf("watch ended: %v", sc.Err())
		}
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Type != "ADDED" || apiVersionOf(ev.Object) != "example.com/v2" {
			t.Errorf("watch through v2: %s", sc.Bytes())
		}
	}
}

// watchRequest opens a watch with the admin token; the caller closes the body.
func watchRequest(t *testing.T, s *apiservertest.Server, path string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest("GET", s.URL()+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.Token)
	return s.Client.HTTPClient().Do(req)
}
