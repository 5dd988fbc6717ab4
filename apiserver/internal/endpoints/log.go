package endpoints

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// logParams are the pods/log query parameters passed on to the node agent.
var logParams = []string{"follow", "tailLines", "sinceSeconds", "sinceTime", "timestamps", "previous", "limitBytes"}

// podLog serves GET pods/{name}/log by proxying to the node agent of the
// pod's node, at its InternalIP (or Hostname) and kubelet endpoint port.
func (h *Handler) podLog(w http.ResponseWriter, r *http.Request, req *request) (any, error) {
	if req.Verb != "get" {
		return nil, apierrors.NewMethodNotSupported(req.gr, r.Method)
	}
	ctx := r.Context()
	pod, err := h.read(ctx, req.res, req.Namespace, req.Name)
	if err != nil {
		return nil, err
	}
	container := r.URL.Query().Get("container")
	if container == "" {
		var names []string
		for _, c := range api.NestedSlice(pod, "spec", "containers") {
			if m, ok := c.(map[string]any); ok {
				names = append(names, api.NestedString(m, "name"))
			}
		}
		if len(names) != 1 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", req.Name, names))
		}
		container = names[0]
	}
	nodeName := api.NestedString(pod, "spec", "nodeName")
	if nodeName == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", req.Name))
	}
	if h.cfg.NodeTransport == nil {
		return nil, apierrors.NewServiceUnavailable("this server cannot reach node agents")
	}
	nodes, _ := h.cfg.Registry.Lookup("", "v1", "nodes")
	node, err := h.read(ctx, nodes, "", nodeName)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("node %s of pod %s: %v", nodeName, req.Name, err))
	}
	host := ""
	for _, typ := range []string{"InternalIP", "ExternalIP", "Hostname"} {
		for _, a := range api.NestedSlice(node, "status", "addresses") {
			if m, ok := a.(map[string]any); ok && host == "" && api.NestedString(m, "type") == typ {
				host = api.NestedString(m, "address")
			}
		}
	}
	port := api.Int64(api.Nested(node, "status", "daemonEndpoints", "kubeletEndpoint", "Port"))
	if host == "" || port == 0 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("node %s has no address or kubelet port to fetch logs from", nodeName))
	}
	q := url.Values{}
	for _, p := range logParams {
		if v := r.URL.Query().Get(p); v != "" {
			q.Set(p, v)
		}
	}
	u := url.URL{Scheme: "https", Host: net.JoinHostPort(host, strconv.FormatInt(port, 10)),
		Path: "/containerLogs/" + req.Namespace + "/" + req.Name + "/" + container, RawQuery: q.Encode()}
	preq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := h.cfg.NodeTransport.RoundTrip(preq)
	if err != nil {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("reaching the node agent of %s: %v", nodeName, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		msg := strings.TrimSpace(string(b))
		if resp.StatusCode == http.StatusNotFound {
			return nil, apierrors.NewBadRequest(msg)
		}
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("node agent of %s: %s", nodeName, msg))
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return streamed{}, nil
			}
			rc.Flush()
		}
		if err != nil {
			return streamed{}, nil
		}
	}
}

// read gets one stored object.
func (h *Handler) read(ctx context.Context, res *api.Resource, namespace, name string) (api.Object, error) {
	kv, err := h.cfg.Store.Get(ctx, res.Key(namespace, name))
	if err != nil {
		return nil, storageError(err, res, name)
	}
	return decodeStored(kv.Value, kv.ModRevision)
}
