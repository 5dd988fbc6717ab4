package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/capstan-io/capstan/apiserver/api"
)

// ResourceClient works on one resource, optionally in one namespace.
type ResourceClient struct {
	c                        *Client
	group, version, resource string
	namespace                string
}

// Resource returns a client for group/version/resource ("" group for core).
func (c *Client) Resource(group, version, resource string) *ResourceClient {
	return &ResourceClient{c: c, group: group, version: version, resource: resource}
}

// Namespace scopes the client to ns.
func (rc *ResourceClient) Namespace(ns string) *ResourceClient {
	cp := *rc
	cp.namespace = ns
	return &cp
}

// Path is the collection path, or an object's path when name is set, plus a subresource.
func (rc *ResourceClient) Path(name, sub string) string {
	p := "/api/" + rc.version
	if rc.group != "" {
		p = "/apis/" + rc.group + "/" + rc.version
	}
	if rc.namespace != "" {
		p += "/namespaces/" + url.PathEscape(rc.namespace)
	}
	p += "/" + rc.resource
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	if sub != "" {
		p += "/" + sub
	}
	return p
}

func (rc *ResourceClient) object(ctx context.Context, req Request) (api.Object, error) {
	b, err := rc.c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	return api.Decode(b)
}

// Get reads one object.
func (rc *ResourceClient) Get(ctx context.Context, name string) (api.Object, error) {
	return rc.object(ctx, Request{Method: http.MethodGet, Path: rc.Path(name, "")})
}

// ListOptions narrow a list or watch.
type ListOptions struct {
	LabelSelector, FieldSelector string
	ResourceVersion              string
	ResourceVersionMatch         string
	Limit                        int64
	Continue                     string
	AllowWatchBookmarks          bool
	SendInitialEvents            *bool
	TimeoutSeconds               int64
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("labelSelector", o.LabelSelector)
	set("fieldSelector", o.FieldSelector)
	set("resourceVersion", o.ResourceVersion)
	set("resourceVersionMatch", o.ResourceVersionMatch)
	set("continue", o.Continue)
	if o.Limit > 0 {
		q.Set("limit", strconv.FormatInt(o.Limit, 10))
	}
	if o.AllowWatchBookmarks {
		q.Set("allowWatchBookmarks", "true")
	}
	if o.SendInitialEvents != nil {
		q.Set("sendInitialEvents", strconv.FormatBool(*o.SendInitialEvents))
	}
	if o.TimeoutSeconds > 0 {
		q.Set("timeoutSeconds", strconv.FormatInt(o.TimeoutSeconds, 10))
	}
	return q
}

// List is a decoded list.
type List struct {
	Metadata api.ListMeta `json:"metadata"`
	Items    []api.Object `json:"items"`
}

// List reads a collection.
func (rc *ResourceClient) List(ctx context.Context, opts ListOptions) (*List, error) {
	b, err := rc.c.Do(ctx, Request{Method: http.MethodGet, Path: rc.Path("", ""), Query: opts.query().Encode()})
	if err != nil {
		return nil, err
	}
	// Decode numbers as json.Number, as api.Decode does for single objects and
	// watch events, so an object compares equal however it was read.
	var l List
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("decoding list: %w", err)
	}
	return &l, nil
}

// Create stores a new object.
func (rc *ResourceClient) Create(ctx context.Context, o api.Object) (api.Object, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return rc.object(ctx, Request{Method: http.MethodPost, Path: rc.Path("", ""), Body: b})
}

// Update replaces an object (or a subresource such as "status").
func (rc *ResourceClient) Update(ctx context.Context, o api.Object, sub string) (api.Object, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return rc.object(ctx, Request{Method: http.MethodPut, Path: rc.Path(o.Name(), sub), Body: b})
}

// Patch applies a patch of the given media type to an object or subresource.
func (rc *ResourceClient) Patch(ctx context.Context, name, sub, patchType string, patch []byte) (api.Object, error) {
	return rc.object(ctx, Request{Method: http.MethodPatch, Path: rc.Path(name, sub), ContentType: patchType, Body: patch})
}

// Delete removes an object; opts, if not nil, is sent as DeleteOptions.
func (rc *ResourceClient) Delete(ctx context.Context, name string, opts map[string]any) (api.Object, error) {
	req := Request{Method: http.MethodDelete, Path: rc.Path(name, "")}
	if opts != nil {
		b, err := json.Marshal(opts)
		if err != nil {
			return nil, err
		}
		req.Body = b
	}
	return rc.object(ctx, req)
}
