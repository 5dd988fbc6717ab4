package nodeagent

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

const mergePatch = "application/merge-patch+json"

// detectAddress returns the address of the interface that routes outward,
// falling back to loopback. No packet is sent.
func detectAddress() string {
	c, err := net.Dial("udp", "192.0.2.1:9")
	if err != nil {
		return "127.0.0.1"
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).IP.String()
}

// memInfo reads a /proc/meminfo field in bytes (0 if unknown).
func memInfo(field string) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		if !ok || k != field {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) == 0 {
			return 0
		}
		n, _ := strconv.ParseInt(fs[0], 10, 64)
		return n * 1024
	}
	return 0
}

func (a *Agent) nodeLabels() map[string]any {
	l := map[string]any{
		"kubernetes.io/hostname":  a.cfg.NodeName,
		"kubernetes.io/os":        runtime.GOOS,
		"kubernetes.io/arch":      runtime.GOARCH,
		"beta.kubernetes.io/os":   runtime.GOOS,
		"beta.kubernetes.io/arch": runtime.GOARCH,
	}
	for k, v := range a.cfg.Labels {
		l[k] = v
	}
	return l
}

// condition is one Node condition as observed.
type condition struct{ typ, status, reason, message string }

func (a *Agent) observeConditions() []condition {
	mem := condition{"MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"}
	if avail := memInfo("MemAvailable"); avail > 0 && avail < 100<<20 {
		mem = condition{"MemoryPressure", "True", "KubeletHasInsufficientMemory", "less than 100Mi of memory available"}
	}
	disk := condition{"DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"}
	var fs syscall.Statfs_t
	if syscall.Statfs(a.cfg.DataDir, &fs) == nil && fs.Blocks > 0 && float64(fs.Bavail)/float64(fs.Blocks) < 0.05 {
		disk = condition{"DiskPressure", "True", "KubeletHasDiskPressure", "less than 5% of the data dir's filesystem is free"}
	}
	pid := condition{"PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"}
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		max, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if ents, err := os.ReadDir("/proc"); err == nil && max > 0 && len(ents) > max*9/10 {
			pid = condition{"PIDPressure", "True", "KubeletHasInsufficientPID", "more than 90% of pid_max in use"}
		}
	}
	ready := condition{"Ready", "True", "KubeletReady", "capstan node agent is posting ready status (runtime " + a.runtimeName + ")"}
	return []condition{mem, disk, pid, ready}
}

// nodeStatus is the Node's status as this agent reports it.
func (a *Agent) nodeStatus(conds []condition, now time.Time) map[string]any {
	ts := now.UTC().Format(time.RFC3339)
	var cs []any
	for _, c := range conds {
		lt := ts
		if prev, ok := a.condSince[c.typ]; ok && prev.status == c.status {
			lt = prev.since
		} else {
			a.condSince[c.typ] = condSince{c.status, ts}
		}
		cs = append(cs, map[string]any{"type": c.typ, "status": c.status, "reason": c.reason, "message": c.message,
			"lastHeartbeatTime": ts, "lastTransitionTime": lt})
	}
	cpu := strconv.Itoa(runtime.NumCPU())
	mem := strconv.FormatInt(memInfo("MemTotal"), 10)
	res := map[string]any{"cpu": cpu, "memory": mem, "pods": "110", "ephemeral-storage": "0"}
	if a.runtimeName == "fake" {
		res = map[string]any{"cpu": "32", "memory": "128Gi", "pods": "110"}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = strings.TrimSpace(string(b))
	}
	host, _ := os.Hostname()
	return map[string]any{
		"capacity":    res,
		"allocatable": res,
		"conditions":  cs,
		"addresses": []any{
			map[string]any{"type": "InternalIP", "address": a.cfg.Address},
			map[string]any{"type": "Hostname", "address": a.cfg.NodeName},
		},
		"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]any{"Port": a.port}},
		"nodeInfo": map[string]any{
			"machineID": "", "systemUUID": "", "bootID": "",
			"kernelVersion":           kernel,
			"osImage":                 runtime.GOOS + " (" + host + ")",
			"containerRuntimeVersion": "capstan-" + a.runtimeName + "://" + KubeletVersion,
			"kubeletVersion":          KubeletVersion,
			"kubeProxyVersion":        "",
			"operatingSystem":         runtime.GOOS,
			"architecture":            runtime.GOARCH,
		},
	}
}

type condSince struct{ status, since string }

// register creates the Node, or takes over an existing one's labels and status.
func (a *Agent) register(ctx context.Context) error {
	nodes := a.cfg.Client.Resource("", "v1", "nodes")
	conds := a.observeConditions()
	annotations := map[string]any{annotationLimits: a.limitSupport().String()}
	node := api.Object{"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": a.cfg.NodeName, "labels": a.nodeLabels(), "annotations": annotations},
		"spec":     map[string]any{},
	}
	created, err := nodes.Create(ctx, node)
	switch {
	case err == nil:
		a.nodeUID = created.UID()
	case apierrors.IsAlreadyExists(err):
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": a.nodeLabels(), "annotations": annotations}})
		got, err := nodes.Patch(ctx, a.cfg.NodeName, "", mergePatch, patch)
		if err != nil {
			return err
		}
		a.nodeUID = got.UID()
	default:
		return err
	}
	return a.postStatus(ctx, conds)
}

func (a *Agent) postStatus(ctx context.Context, conds []condition) error {
	a.nodeMu.Lock()
	st := a.nodeStatus(conds, time.Now())
	a.nodeMu.Unlock()
	patch, _ := json.Marshal(map[string]any{"status": st})
	_, err := a.cfg.Client.Resource("", "v1", "nodes").Patch(ctx, a.cfg.NodeName, "status", mergePatch, patch)
	return err
}

// runNodeStatus posts the conditions when they change and at least every StatusUpdateFrequency.
func (a *Agent) runNodeStatus(ctx context.Context) {
	check := min(10*time.Second, a.cfg.StatusUpdateFrequency)
	t := time.NewTicker(check)
	defer t.Stop()
	var last []condition
	lastPost := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		conds := a.observeConditions()
		changed := len(last) != len(conds)
		for i := range conds {
			if !changed && last[i] != conds[i] {
				changed = true
			}
		}
		if !changed && time.Since(lastPost) < a.cfg.StatusUpdateFrequency {
			continue
		}
		if err := a.postStatus(ctx, conds); err != nil {
			a.log.Warn("posting node status", "err", err)
			continue
		}
		last, lastPost = conds, time.Now()
	}
}

// runLease renews the node's Lease in kube-node-lease.
func (a *Agent) runLease(ctx context.Context) {
	leases := a.cfg.Client.Resource("coordination.k8s.io", "v1", "leases").Namespace("kube-node-lease")
	t := time.NewTicker(a.cfg.LeaseRenewInterval)
	defer t.Stop()
	for {
		if err := a.renewLease(ctx, leases); err != nil && ctx.Err() == nil {
			a.log.Warn("renewing node lease", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (a *Agent) renewLease(ctx context.Context, leases interface {
	Get(context.Context, string) (api.Object, error)
	Create(context.Context, api.Object) (api.Object, error)
	Update(context.Context, api.Object, string) (api.Object, error)
}) error {
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z07:00")
	spec := map[string]any{"holderIdentity": a.cfg.NodeName, "leaseDurationSeconds": int(a.cfg.LeaseDuration / time.Second), "renewTime": now}
	cur, err := leases.Get(ctx, a.cfg.NodeName)
	if apierrors.IsNotFound(err) {
		l := api.Object{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
			"metadata": map[string]any{"name": a.cfg.NodeName, "namespace": "kube-node-lease"}, "spec": spec}
		if a.nodeUID != "" {
			l.Meta()["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "Node", "name": a.cfg.NodeName, "uid": a.nodeUID}}
		}
		_, err = leases.Create(ctx, l)
		return err
	}
	if err != nil {
		return err
	}
	cur["spec"] = spec
	_, err = leases.Update(ctx, cur, "")
	return err
}
