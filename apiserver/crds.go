package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"time"

	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/internal/endpoints"
	"github.com/capstan-io/capstan/storage"
)

// crdResource is where CustomResourceDefinitions are stored.
var crdResource = &api.Resource{Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions", Kind: "CustomResourceDefinition"}

// crdController serves the resources CRDs define. Every server process runs
// one: it lists the CRDs, then watches them, and for each one registers its
// served versions (registry, so routes, discovery and OpenAPI see them) and
// their schemas (admission). It sets the CRD's NamesAccepted and Established
// conditions, and when a CRD is deleted it stops serving it and deletes its
// objects. Only Run's goroutine uses it.
type crdController struct {
	store   storage.Interface
	reg     *api.Registry
	schemas *schema.Set
	log     *slog.Logger
	served  map[string][]*api.Resource // by CRD name
}

func newCRDController(store storage.Interface, reg *api.Registry, schemas *schema.Set, log *slog.Logger) *crdController {
	return &crdController{store: store, reg: reg, schemas: schemas, log: log, served: map[string][]*api.Resource{}}
}

// Run lists and watches CRDs until ctx ends, re-listing after a broken watch.
func (c *crdController) Run(ctx context.Context) error {
	prefix := crdResource.KeyPrefix()
	for ctx.Err() == nil {
		res, err := c.store.List(ctx, prefix, storage.ListOptions{})
		if err != nil {
			c.log.WarnContext(ctx, "listing CRDs", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		seen := map[string]bool{}
		for _, kv := range res.Items {
			seen[c.apply(ctx, kv)] = true
		}
		for name := range c.served {
			if !seen[name] {
				c.remove(ctx, name)
			}
		}
		events, errc := c.store.Watch(ctx, prefix, res.Revision)
		for ev := range events {
			switch ev.Type {
			case storage.EventPut:
				c.apply(ctx, ev.KV)
			case storage.EventDelete:
				c.remove(ctx, strings.TrimPrefix(ev.KV.Key, prefix))
			}
		}
		select { // errc carries an error only when the watch failed
		case err := <-errc:
			if ctx.Err() == nil {
				c.log.WarnContext(ctx, "CRD watch ended; listing again", "err", err)
			}
		default:
		}
	}
	return nil
}

// crdSpec is the part of a CRD the controller reads.
type crdSpec struct {
	Metadata struct {
		Name              string `json:"name"`
		DeletionTimestamp string `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		Group string   `json:"group"`
		Names crdNames `json:"names"`
		Scope string   `json:"scope"`
		// Versions are the served and stored versions.
		Versions []struct {
			Name    string `json:"name"`
			Served  bool   `json:"served"`
			Storage bool   `json:"storage"`
			Schema  *struct {
				OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
			} `json:"schema"`
			Subresources *struct {
				Status *struct{} `json:"status"`
				Scale  *struct{} `json:"scale"`
			} `json:"subresources"`
			AdditionalPrinterColumns []struct {
				Name        string `json:"name"`
				Type        string `json:"type"`
				Format      string `json:"format"`
				Description string `json:"description"`
				JSONPath    string `json:"jsonPath"`
				Priority    int32  `json:"priority"`
			} `json:"additionalPrinterColumns"`
		} `json:"versions"`
	} `json:"spec"`
}

type crdNames struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// apply serves the CRD stored in kv and returns its name.
func (c *crdController) apply(ctx context.Context, kv storage.KeyValue) string {
	var crd crdSpec
	if err := json.Unmarshal(kv.Value, &crd); err != nil {
		c.log.WarnContext(ctx, "decoding CRD", "key", kv.Key, "err", err)
		return ""
	}
	name, s := crd.Metadata.Name, crd.Spec
	var rs []*api.Resource
	storageVersion := ""
	for _, v := range s.Versions {
		if v.Storage {
			storageVersion = v.Name
		}
		if !v.Served {
			continue
		}
		r := &api.Resource{
			Group: s.Group, Version: v.Name, Name: s.Names.Plural, Singular: s.Names.Singular, Kind: s.Names.Kind,
			Namespaced: s.Scope != "Cluster", ShortNames: s.Names.ShortNames, Categories: s.Names.Categories,
		}
		if r.Singular == "" {
			r.Singular = strings.ToLower(r.Kind)
		}
		if sub := v.Subresources; sub != nil {
			if sub.Status != nil {
				r.Subresources = append(r.Subresources, "status")
			}
			if sub.Scale != nil {
				r.Subresources = append(r.Subresources, "scale")
			}
		}
		for _, pc := range v.AdditionalPrinterColumns {
			r.PrinterColumns = append(r.PrinterColumns, api.PrinterColumn{Name: pc.Name, Type: pc.Type, Format: pc.Format, Description: pc.Description, JSONPath: pc.JSONPath, Priority: pc.Priority})
		}
		var oas map[string]any
		if v.Schema != nil {
			oas = v.Schema.OpenAPIV3Schema
		}
		doc, err := schema.FromCRD(oas, r.Group, r.Version, r.Kind)
		if err == nil {
			err = c.schemas.Add(schema.Kind{Group: r.Group, Version: r.Version, Kind: r.Kind}, doc, false)
		}
		if err != nil {
			c.log.WarnContext(ctx, "CRD schema", "crd", name, "version", v.Name, "err", err)
			continue
		}
		r.Schema = doc
		c.reg.Add(*r)
		rs = append(rs, r)
	}
	old := c.served[name]
	c.served[name] = rs
	for _, o := range old {
		if !containsVersion(rs, o) {
			c.unserve(o)
		}
	}
	c.setEstablished(ctx, kv, crd.Spec.Names, storageVersion)
	return name
}

func containsVersion(rs []*api.Resource, r *api.Resource) bool {
	for _, x := range rs {
		if x.Group == r.Group && x.Version == r.Version && x.Name == r.Name {
			return true
		}
	}
	return false
}

func (c *crdController) unserve(r *api.Resource) {
	c.reg.Remove(r.Group, r.Version, r.Name)
	c.schemas.Remove(schema.Kind{Group: r.Group, Version: r.Version, Kind: r.Kind})
}

// remove stops serving a deleted CRD and deletes its objects.
func (c *crdController) remove(ctx context.Context, name string) {
	rs := c.served[name]
	delete(c.served, name)
	for _, r := range rs {
		c.unserve(r)
	}
	if len(rs) == 0 {
		return
	}
	prefix := rs[0].KeyPrefix() // every version shares the storage prefix
	res, err := c.store.List(ctx, prefix, storage.ListOptions{})
	if err != nil {
		c.log.WarnContext(ctx, "listing objects of a deleted CRD", "crd", name, "err", err)
		return
	}
	for _, kv := range res.Items {
		if _, err := c.store.Delete(ctx, kv.Key, kv.ModRevision); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrConflict) {
			c.log.WarnContext(ctx, "deleting an object of a deleted CRD", "key", kv.Key, "err", err)
		}
	}
}

// setEstablished writes the NamesAccepted and Established conditions once.
// Servers racing to write it lose on the revision precondition, harmlessly.
func (c *crdController) setEstablished(ctx context.Context, kv storage.KeyValue, names crdNames, storageVersion string) {
	o, err := api.Decode(kv.Value)
	if err != nil {
		return
	}
	if names.ListKind == "" {
		names.ListKind = names.Kind + "List"
	}
	var accepted map[string]any
	b, _ := json.Marshal(names)
	json.Unmarshal(b, &accepted)
	status, _ := o["status"].(map[string]any)
	if status != nil && reflect.DeepEqual(normalize(status["acceptedNames"]), normalize(accepted)) && hasTrue(status, "Established") {
		return
	}
	now := time.Now().UTC().Format(time.RFC3339)
	cond := func(t, reason, msg string) map[string]any {
		return map[string]any{"type": t, "status": "True", "lastTransitionTime": now, "reason": reason, "message": msg}
	}
	stored := []any{}
	if storageVersion != "" {
		stored = append(stored, storageVersion)
	}
	o["status"] = map[string]any{
		"acceptedNames":  accepted,
		"storedVersions": stored,
		"conditions": []any{
			cond("NamesAccepted", "NoConflicts", "no conflicts found"),
			cond("Established", "InitialNamesAccepted", "the initial names have been accepted"),
		},
	}
	body, err := endpoints.EncodeForStorage(o)
	if err != nil {
		return
	}
	if _, err := c.store.Update(ctx, kv.Key, body, kv.ModRevision); err != nil && !errors.Is(err, storage.ErrConflict) && !errors.Is(err, storage.ErrNotFound) {
		c.log.WarnContext(ctx, "setting CRD conditions", "key", kv.Key, "err", err)
	}
}

func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	json.Unmarshal(b, &out)
	return out
}

func hasTrue(status map[string]any, condType string) bool {
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == condType && m["status"] == "True" {
			return true
		}
	}
	return false
}
