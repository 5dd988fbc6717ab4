package defaults

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/capstan-io/capstan/admission"
)

// New returns the defaulting plugin.
func New() admission.Mutator {
	return admission.MutatorFunc{PluginName: "Defaults", Fn: admit}
}

func admit(_ context.Context, a *admission.Attributes) error {
	if a.Object == nil || a.Resource == nil || a.Subresource == "scale" {
		return nil
	}
	o := a.Object
	switch a.Resource.GroupVersion() + "/" + a.Resource.Kind {
	case "v1/Pod":
		podSpec(mapAt(o, "spec"))
	case "v1/Service":
		service(mapAt(o, "spec"))
	case "v1/Secret":
		setDefault(o, "type", "Opaque")
		mergeStringData(o)
	case "apps/v1/Deployment":
		spec := mapAt(o, "spec")
		setDefault(spec, "replicas", num(1))
		strategy := mapAt(spec, "strategy")
		setDefault(strategy, "type", "RollingUpdate")
		if strategy["type"] == "RollingUpdate" {
			ru := mapAt(strategy, "rollingUpdate")
			setDefault(ru, "maxUnavailable", "25%")
			setDefault(ru, "maxSurge", "25%")
		}
		setDefault(spec, "revisionHistoryLimit", num(10))
		setDefault(spec, "progressDeadlineSeconds", num(600))
		podSpec(mapAt(mapAt(spec, "template"), "spec"))
	case "apps/v1/ReplicaSet":
		spec := mapAt(o, "spec")
		setDefault(spec, "replicas", num(1))
		podSpec(mapAt(mapAt(spec, "template"), "spec"))
	}
	return nil
}

// podSpec defaults a pod's spec, or a pod template's.
func podSpec(spec map[string]any) {
	setDefault(spec, "restartPolicy", "Always")
	setDefault(spec, "terminationGracePeriodSeconds", num(30))
	setDefault(spec, "dnsPolicy", "ClusterFirst")
	setDefault(spec, "schedulerName", "default-scheduler")
	setDefault(spec, "securityContext", map[string]any{})
	for _, list := range []string{"initContainers", "containers"} {
		for _, c := range maps(spec[list]) {
			container(c)
		}
	}
}

func container(c map[string]any) {
	setDefault(c, "imagePullPolicy", pullPolicy(c["image"]))
	setDefault(c, "terminationMessagePath", "/dev/termination-log")
	setDefault(c, "terminationMessagePolicy", "File")
	setDefault(c, "resources", map[string]any{})
	for _, p := range maps(c["ports"]) {
		setDefault(p, "protocol", "TCP")
	}
}

// pullPolicy is Always for an image without a tag or tagged latest, else IfNotPresent.
func pullPolicy(image any) string {
	s, _ := image.(string)
	if strings.Contains(s, "@") {
		return "IfNotPresent"
	}
	name := s[strings.LastIndex(s, "/")+1:]
	_, tag, hasTag := strings.Cut(name, ":")
	if !hasTag || tag == "latest" {
		return "Always"
	}
	return "IfNotPresent"
}

func service(spec map[string]any) {
	setDefault(spec, "type", "ClusterIP")
	setDefault(spec, "sessionAffinity", "None")
	for _, p := range maps(spec["ports"]) {
		setDefault(p, "protocol", "TCP")
		if _, ok := p["targetPort"]; !ok && p["port"] != nil {
			p["targetPort"] = p["port"]
		}
	}
	if spec["type"] == "ClusterIP" || spec["type"] == "NodePort" || spec["type"] == "LoadBalancer" {
		setDefault(spec, "internalTrafficPolicy", "Cluster")
	}
}

func num(n int) json.Number { return json.Number(strconv.Itoa(n)) }

// setDefault sets m[k] when it is missing or null.
func setDefault(m map[string]any, k string, v any) {
	if m == nil {
		return
	}
	if cur, ok := m[k]; !ok || cur == nil {
		m[k] = v
	}
}

// mapAt returns m[k] as a map, creating it when missing; nil when m[k] is not an object.
func mapAt(m map[string]any, k string) map[string]any {
	if m == nil {
		return nil
	}
	switch v := m[k].(type) {
	case map[string]any:
		return v
	case nil:
		nm := map[string]any{}
		m[k] = nm
		return nm
	}
	return nil
}

// maps returns the objects in a JSON array, skipping anything else.
func maps(v any) []map[string]any {
	s, _ := v.([]any)
	out := make([]map[string]any, 0, len(s))
	for _, e := range s {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// mergeStringData moves a Secret's write-only stringData into data, base64
// encoded, as Kubernetes does when it converts the object for storage.
func mergeStringData(o map[string]any) {
	sd, ok := o["stringData"].(map[string]any)
	if !ok {
		return
	}
	delete(o, "stringData")
	if len(sd) == 0 {
		return
	}
	data := mapAt(o, "data")
	if data == nil {
		return
	}
	for k, v := range sd {
		if s, ok := v.(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
}
