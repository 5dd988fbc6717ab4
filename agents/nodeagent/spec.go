package nodeagent

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// VolumeEnvPrefix starts the variable that names a mounted volume's
// directory: a volumeMount of volume "my-config" is reachable through
// $CAPSTAN_VOLUME_MY_CONFIG (plus subPath, if any). Processes share the
// node's filesystem, so mountPath itself is not created.
const VolumeEnvPrefix = "CAPSTAN_VOLUME_"

// VolumeEnvName is the variable for a volume's directory.
func VolumeEnvName(volume string) string {
	b := []byte(strings.ToUpper(volume))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return VolumeEnvPrefix + string(b)
}

func (a *Agent) volumeDir(uid, name string) string {
	return filepath.Join(a.podDir(uid), "volumes", name)
}

// prepareVolumes materialises the pod's volumes as files.
func (a *Agent) prepareVolumes(ctx context.Context, pod *corev1.Pod) error {
	if a.runtimeName == "fake" {
		return nil // simulated containers read nothing
	}
	for _, v := range pod.Spec.Volumes {
		dir := a.volumeDir(string(pod.UID), v.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		files := map[string][]byte{}
		switch {
		case v.EmptyDir != nil:
			continue
		case v.ConfigMap != nil:
			data, err := a.keyData(ctx, "configmaps", pod.Namespace, v.ConfigMap.Name, v.ConfigMap.Optional)
			if err != nil {
				return err
			}
			files = pick(data, v.ConfigMap.Items)
		case v.Secret != nil:
			data, err := a.keyData(ctx, "secrets", pod.Namespace, v.Secret.SecretName, v.Secret.Optional)
			if err != nil {
				return err
			}
			files = pick(data, v.Secret.Items)
		case v.DownwardAPI != nil:
			for _, it := range v.DownwardAPI.Items {
				var val string
				var err error
				switch {
				case it.FieldRef != nil:
					val, err = a.fieldRef(pod, it.FieldRef.FieldPath)
				case it.ResourceFieldRef != nil:
					val, err = a.resourceRef(pod, it.ResourceFieldRef)
				}
				if err != nil {
					return err
				}
				files[it.Path] = []byte(val)
			}
		default:
			return fmt.Errorf("volume %q: only emptyDir, configMap, secret and downwardAPI volumes are supported", v.Name)
		}
		for name, b := range files {
			p := filepath.Join(dir, filepath.Clean("/"+name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func pick(data map[string][]byte, items []corev1.KeyToPath) map[string][]byte {
	if len(items) == 0 {
		return data
	}
	out := map[string][]byte{}
	for _, it := range items {
		if b, ok := data[it.Key]; ok {
			out[it.Path] = b
		}
	}
	return out
}

// keyData reads a ConfigMap's or Secret's data (nil if optional and missing).
func (a *Agent) keyData(ctx context.Context, resource, ns, name string, optional *bool) (map[string][]byte, error) {
	o, err := a.cfg.Client.Resource("", "v1", resource).Namespace(ns).Get(ctx, name)
	if err != nil {
		if apierrors.IsNotFound(err) && optional != nil && *optional {
			return nil, nil
		}
		kind := map[string]string{"configmaps": "configmap", "secrets": "secret"}[resource]
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%s %q not found", kind, name)
		}
		return nil, fmt.Errorf("reading %s %q: %w", kind, name, err)
	}
	out := map[string][]byte{}
	for k, v := range api.NestedMap(o, "data") {
		s, _ := v.(string)
		if resource == "secrets" {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, fmt.Errorf("secret %q key %q: %w", name, k, err)
			}
			out[k] = b
		} else {
			out[k] = []byte(s)
		}
	}
	for k, v := range api.NestedMap(o, "binaryData") {
		s, _ := v.(string)
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			out[k] = b
		}
	}
	if resource == "secrets" {
		for k, v := range api.NestedMap(o, "stringData") {
			s, _ := v.(string)
			out[k] = []byte(s)
		}
	}
	return out, nil
}

var fieldKey = regexp.MustCompile(`^metadata\.(labels|annotations)\['(.+)'\]$`)

func (a *Agent) fieldRef(pod *corev1.Pod, path string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "metadata.uid":
		return string(pod.UID), nil
	case "spec.nodeName":
		return pod.Spec.NodeName, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "status.hostIP", "status.podIP", "status.hostIPs", "status.podIPs":
		return a.cfg.Address, nil
	case "metadata.labels", "metadata.annotations":
		m := pod.Labels
		if path == "metadata.annotations" {
			m = pod.Annotations
		}
		var lines []string
		for k, v := range m {
			lines = append(lines, fmt.Sprintf("%s=%q", k, v))
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n"), nil
	}
	if m := fieldKey.FindStringSubmatch(path); m != nil {
		if m[1] == "labels" {
			return pod.Labels[m[2]], nil
		}
		return pod.Annotations[m[2]], nil
	}
	return "", fmt.Errorf("unsupported fieldRef %q", path)
}

func (a *Agent) resourceRef(pod *corev1.Pod, ref *corev1.ResourceFieldSelector) (string, error) {
	var c *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == ref.ContainerName || ref.ContainerName == "" && i == 0 {
			c = &pod.Spec.Containers[i]
		}
	}
	if c == nil {
		return "", fmt.Errorf("resourceFieldRef: no container %q", ref.ContainerName)
	}
	kind, name, _ := strings.Cut(ref.Resource, ".")
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(name)]
	if !ok {
		switch name { // an unset limit is the node's capacity
		case "cpu":
			q = *resource.NewQuantity(int64(runtime.NumCPU()), resource.DecimalSI)
		case "memory":
			q = *resource.NewQuantity(memInfo("MemTotal"), resource.BinarySI)
		default:
			q = resource.Quantity{}
		}
		if kind == "requests" {
			q = resource.Quantity{}
		}
	}
	div := ref.Divisor
	if div.IsZero() {
		div = resource.MustParse("1")
	}
	return fmt.Sprint(int64(math.Ceil(q.AsApproximateFloat64() / div.AsApproximateFloat64()))), nil
}

// containerEnv builds a container's environment.
func (a *Agent) containerEnv(ctx context.Context, pod *corev1.Pod, c corev1.Container) ([]string, error) {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	}
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	set("PATH", path)
	set("HOME", a.podDir(string(pod.UID)))
	set("HOSTNAME", pod.Name)
	set("CAPSTAN_POD_DIR", a.podDir(string(pod.UID)))
	for _, m := range c.VolumeMounts {
		set(VolumeEnvName(m.Name), filepath.Join(a.volumeDir(string(pod.UID), m.Name), m.SubPath))
	}
	for _, ef := range c.EnvFrom {
		var data map[string][]byte
		var err error
		switch {
		case ef.ConfigMapRef != nil:
			data, err = a.keyData(ctx, "configmaps", pod.Namespace, ef.ConfigMapRef.Name, ef.ConfigMapRef.Optional)
		case ef.SecretRef != nil:
			data, err = a.keyData(ctx, "secrets", pod.Namespace, ef.SecretRef.Name, ef.SecretRef.Optional)
		}
		if err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			set(ef.Prefix+k, string(data[k]))
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			set(e.Name, expand(e.Value, vars))
			continue
		}
		var v string
		var err error
		switch vf := e.ValueFrom; {
		case vf.FieldRef != nil:
			v, err = a.fieldRef(pod, vf.FieldRef.FieldPath)
		case vf.ResourceFieldRef != nil:
			ref := *vf.ResourceFieldRef
			if ref.ContainerName == "" {
				ref.ContainerName = c.Name
			}
			v, err = a.resourceRefIn(pod, c, &ref)
		case vf.ConfigMapKeyRef != nil:
			v, err = a.keyRef(ctx, "configmaps", pod.Namespace, vf.ConfigMapKeyRef.Name, vf.ConfigMapKeyRef.Key, vf.ConfigMapKeyRef.Optional)
		case vf.SecretKeyRef != nil:
			v, err = a.keyRef(ctx, "secrets", pod.Namespace, vf.SecretKeyRef.Name, vf.SecretKeyRef.Key, vf.SecretKeyRef.Optional)
		}
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", e.Name, err)
		}
		set(e.Name, v)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vars[k])
	}
	return out, nil
}

// resourceRefIn resolves a resourceFieldRef, including for init containers.
func (a *Agent) resourceRefIn(pod *corev1.Pod, c corev1.Container, ref *corev1.ResourceFieldSelector) (string, error) {
	p := *pod
	p.Spec.Containers = append([]corev1.Container{c}, pod.Spec.Containers...)
	return a.resourceRef(&p, ref)
}

func (a *Agent) keyRef(ctx context.Context, resource, ns, name, key string, optional *bool) (string, error) {
	data, err := a.keyData(ctx, resource, ns, name, optional)
	if err != nil {
		return "", err
	}
	b, ok := data[key]
	if !ok && !(optional != nil && *optional) {
		return "", fmt.Errorf("key %q not found in %s %q", key, strings.TrimSuffix(resource, "s"), name)
	}
	return string(b), nil
}

var varRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)`)

// expand replaces $(VAR) with a variable's value, as Kubernetes does in
// command, args and env values; $$ escapes a dollar; unknown references stay.
func expand(s string, vars map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

func expandAll(args []string, env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	out := make([]string, len(args))
	for i, s := range args {
		out[i] = expand(s, vars)
	}
	return out
}
