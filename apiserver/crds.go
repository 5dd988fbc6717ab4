package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/capstan-io/capstan/admission/rules"
	"github.com/capstan-io/capstan/admission/schema"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/storage"
)

// crdResource is where CustomResourceDefinitions are stored.
var crdResource = &api.Resource{Group: "apiextensions.k8s.io", Version: "v1", Name: "customresourcedefinitions", Kind: "CustomResourceDefinition"}

// crdController serves the resources CRDs define. Every server process runs
// one: it lists the CRDs, then watches them, and for each one registers its
// served versions (registry, so routes, discovery and OpenAPI see them) and
// their schemas (admission). It sets the CRD's NamesAccepted and Established
// conditions, and when a CRD is deleted it stops serving it and deletes its
// objects.
//
// Admission refuses a CRD whose names are taken, but two servers can admit
// conflicting CRDs at the same moment. Then every controller decides alike:
// within a group, CRDs are accepted oldest first (by etcd CreateRevision,
// which every server reads alike), and one that claims a name an accepted CRD or a built-in resource
// holds is not served and gets NamesAccepted=False with Kubernetes' reason
// (PluralConflict, KindConflict, ...) until the holder goes away.
//
// Only Run's goroutine uses it.
type crdController struct {
	store   storage.Interface
	reg     *api.Registry
	schemas *schema.Set
	log     *slog.Logger
	crds    map[string]storage.KeyValue // every CRD, by name, as last seen
	served  map[string][]*api.Resource  // accepted CRDs' served versions, by CRD name
}

func newCRDController(store storage.Interface, reg *api.Registry, schemas *schema.Set, log *slog.Logger) *crdController {
	return &crdController{store: store, reg: reg, schemas: schemas, log: log, crds: map[string]storage.KeyValue{}, served: map[string][]*api.Resource{}}
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
			seen[strings.TrimPrefix(kv.Key, prefix)] = true
			c.crds[strings.TrimPrefix(kv.Key, prefix)] = kv
		}
		for name := range c.crds {
			if !seen[name] {
				c.remove(ctx, name)
			}
		}
		c.syncAll(ctx)
		events, errc := c.store.Watch(ctx, prefix, res.Revision)
		for ev := range events {
			name := strings.TrimPrefix(ev.KV.Key, prefix)
			switch ev.Type {
			case storage.EventPut:
				c.crds[name] = ev.KV
				c.syncGroup(ctx, c.groupOf(name))
			case storage.EventDelete:
				group := c.groupOf(name)
				c.remove(ctx, name)
				c.syncGroup(ctx, group) // a CRD its names held back may be accepted now
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

// groupOf is the API group of a known CRD.
func (c *crdController) groupOf(name string) string {
	o, err := api.Decode(c.crds[name].Value)
	if err != nil {
		return ""
	}
	return api.NestedString(o, "spec", "group")
}

// syncAll decides and serves every known CRD.
func (c *crdController) syncAll(ctx context.Context) {
	groups := map[string]bool{}
	for name := range c.crds {
		groups[c.groupOf(name)] = true
	}
	for g := range groups {
		c.syncGroup(ctx, g)
	}
}

// syncGroup decides which CRDs of group are accepted, oldest first, serves
// those and stops serving the others, and writes their conditions.
func (c *crdController) syncGroup(ctx context.Context, group string) {
	type entry struct {
		kv  storage.KeyValue
		obj api.Object
	}
	var es []entry
	for _, kv := range c.crds {
		o, err := api.Decode(kv.Value)
		if err != nil {
			c.log.WarnContext(ctx, "decoding CRD", "key", kv.Key, "err", err)
			continue
		}
		if api.NestedString(o, "spec", "group") == group {
			es = append(es, entry{kv, o})
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].kv.CreateRevision < es[j].kv.CreateRevision })
	var accepted []api.Object
	conflicts := make([][]rules.NameConflict, len(es))
	for i, e := range es {
		if conflicts[i] = rules.CRDNameConflicts(e.obj, accepted); len(conflicts[i]) == 0 {
			accepted = append(accepted, e.obj)
		}
	}
	// Stop serving the refused first: a refused CRD may share its storage
	// prefix and registry entries with the accepted one.
	for i, e := range es {
		if rs := c.served[e.obj.Name()]; len(conflicts[i]) > 0 && len(rs) > 0 {
			delete(c.served, e.obj.Name())
			for _, r := range rs {
				c.unserve(r)
			}
		}
	}
	for i, e := range es {
		if len(conflicts[i]) == 0 {
			c.serve(ctx, e.kv)
		}
		c.setConditions(ctx, e.kv, e.obj, conflicts[i])
	}
}

// serve registers the served versions of the CRD stored in kv.
func (c *crdController) serve(ctx context.Context, kv storage.KeyValue) {
	var crd crdSpec
	if err := json.Unmarshal(kv.Value, &crd); err != nil {
		c.log.WarnContext(ctx, "decoding CRD", "key", kv.Key, "err", err)
		return
	}
	name, s := crd.Metadata.Name, crd.Spec
	var rs []*api.Resource
	storageVersion := ""
	for _, v := range s.Versions {
		if v.Storage {
			storageVersion = v.Name
		}
	}
	for _, v := range s.Versions {
		if !v.Served {
			continue
		}
		r := &api.Resource{
			Group: s.Group, Version: v.Name, Name: s.Names.Plural, Singular: s.Names.Singular, Kind: s.Names.Kind,
			Namespaced: s.Scope != "Cluster", ShortNames: s.Names.ShortNames, Categories: s.Names.Categories,
			StorageVersion: storageVersion,
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

// remove stops serving a deleted CRD and deletes its objects (a CRD that was
// not accepted owns none: its storage prefix is the holder's).
func (c *crdController) remove(ctx context.Context, name string) {
	delete(c.crds, name)
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
