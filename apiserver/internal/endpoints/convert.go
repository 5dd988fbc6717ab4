package endpoints

import (
	"encoding/json"

	"github.com/capstan-io/capstan/apiserver/api"
)

// A custom resource served in several versions keeps one copy of each
// object, stored under the CRD's storage version. Its versions share a
// schema, so converting between them (Kubernetes' conversion strategy None)
// changes only apiVersion: writes store the storage version, and every
// object a client reads, by get, list, watch or as a write's answer, carries
// the version the client asked for.

// converts reports whether the request's objects may be stored under another
// apiVersion than the one requested.
func (req *request) converts() bool {
	return req.res.StorageVersion != "" && req.res.StorageVersion != req.res.Version
}

// fromStorage gives o the requested apiVersion.
func (req *request) fromStorage(o api.Object) {
	if req.res.StorageVersion != "" {
		o["apiVersion"] = req.res.GroupVersion()
	}
}

// encodeStored encodes o for storage under the storage version.
func (req *request) encodeStored(o api.Object) ([]byte, error) {
	if !req.converts() {
		return encodeForStorage(o)
	}
	v := o["apiVersion"]
	o["apiVersion"] = req.res.Group + "/" + req.res.StorageVersion
	defer func() { o["apiVersion"] = v }()
	return encodeForStorage(o)
}

// convertJSON gives an encoded object the requested apiVersion; it re-encodes
// only an object stored under another version.
func (req *request) convertJSON(b []byte) ([]byte, error) {
	if req.res.StorageVersion == "" {
		return b, nil
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(b, &tm); err != nil || tm.APIVersion == req.res.GroupVersion() {
		return b, err
	}
	o, err := api.Decode(b)
	if err != nil {
		return nil, err
	}
	req.fromStorage(o)
	return json.Marshal(o)
}
