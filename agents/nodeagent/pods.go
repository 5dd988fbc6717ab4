package nodeagent

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/capstan-io/capstan/agents/containers"
	"github.com/capstan-io/capstan/agents/containers/cgroups"
	"github.com/capstan-io/capstan/apiserver/api"
	"github.com/capstan-io/capstan/apiserver/apierrors"
)

// Labels the agent puts on every container to map it back to its pod.
const (
	labelPodUID    = "capstan.io/pod-uid"
	labelNamespace = "capstan.io/pod-namespace"
	labelPodName   = "capstan.io/pod-name"
	labelContainer = "capstan.io/container"
	labelAttempt   = "capstan.io/attempt"
)

// podState is what the agent remembers of one pod between syncs.
type podState struct {
	rv           string
	pod          *corev1.Pod
	obj          api.Object
	terminating  bool
	volumesReady bool
	final        bool // phase Succeeded or Failed: nothing restarts any more
	startTime    time.Time
	configErr    map[string]string // container name → why it cannot start
	backoffNoted map[string]bool   // container id → BackOff event sent
	probes       map[string]*probeSet
	desired      []byte // status to write
	reported     []byte // status last written
}

func (a *Agent) podStateFor(o api.Object) (*podState, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ps := a.state[o.UID()]
	if ps == nil {
		ps = &podState{configErr: map[string]string{}, backoffNoted: map[string]bool{}, probes: map[string]*probeSet{}}
		a.state[o.UID()] = ps
	}
	if ps.rv != o.ResourceVersion() || ps.pod == nil {
		b, err := json.Marshal(o)
		if err != nil {
			return nil, err
		}
		var p corev1.Pod
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, err
		}
		if p.Spec.RestartPolicy == "" {
			p.Spec.RestartPolicy = corev1.RestartPolicyAlways
		}
		ps.rv, ps.pod, ps.obj = o.ResourceVersion(), &p, o
	}
	return ps, nil
}

// attempt is one run of a container.
func attemptOf(st containers.Status) int {
	n, _ := strconv.Atoi(st.Spec.Labels[labelAttempt])
	return n
}

func (a *Agent) syncAll(ctx context.Context) {
	all, err := a.cfg.Runtime.List(ctx)
	if err != nil {
		a.log.Warn("listing containers", "err", err)
		return
	}
	byPod := map[string][]containers.Status{}
	for _, c := range all {
		if uid := c.Spec.Labels[labelPodUID]; uid != "" {
			byPod[uid] = append(byPod[uid], c)
		}
	}
	live := map[string]bool{}
	for _, o := range a.pods.Store().List() {
		live[o.UID()] = true
		if err := a.syncPod(ctx, o, byPod[o.UID()]); err != nil {
			a.log.Warn("syncing pod", "pod", o.Namespace()+"/"+o.Name(), "err", err)
		}
	}
	for uid, cs := range byPod {
		if !live[uid] {
			a.reap(ctx, uid, cs)
		}
	}
	a.mu.Lock()
	for uid, ps := range a.state {
		if !live[uid] && !ps.terminating {
			delete(a.state, uid)
		}
	}
	a.mu.Unlock()
	a.flushStatus(ctx)
}

var reaping sync.Map // pod uid → true while its containers are being stopped

// reap stops and removes the containers of a pod that no longer exists.
func (a *Agent) reap(ctx context.Context, uid string, cs []containers.Status) {
	if _, busy := reaping.LoadOrStore(a.cfg.NodeName+"/"+uid, true); busy {
		return
	}
	go func() {
		defer reaping.Delete(a.cfg.NodeName + "/" + uid)
		a.stopAll(ctx, cs, 10*time.Second)
		for _, c := range cs {
			a.cfg.Runtime.Remove(ctx, c.Spec.ID)
		}
		os.RemoveAll(a.podDir(uid))
		a.log.Info("removed containers of a deleted pod", "uid", uid, "containers", len(cs))
	}()
}

func (a *Agent) stopAll(ctx context.Context, cs []containers.Status, grace time.Duration) {
	var wg sync.WaitGroup
	for _, c := range cs {
		if c.State != containers.StateRunning {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			containers.Stop(ctx, a.cfg.Runtime, c.Spec.ID, grace)
		}()
	}
	wg.Wait()
}

func (a *Agent) podDir(uid string) string { return filepath.Join(a.cfg.DataDir, "pods", uid) }

// outcome is where one container stands.
type outcome int

const (
	outPending   outcome = iota // not started, or waiting to restart
	outRunning                  // running
	outSucceeded                // exited 0 for good
	outFailed                   // exited non-zero for good
)

func (a *Agent) syncPod(ctx context.Context, o api.Object, cs []containers.Status) error {
	ps, err := a.podStateFor(o)
	if err != nil {
		return err
	}
	pod := ps.pod
	if pod.DeletionTimestamp != nil {
		a.startTerminate(ctx, ps, cs)
		return nil
	}
	hist := map[string][]containers.Status{}
	for _, c := range cs {
		n := c.Spec.Labels[labelContainer]
		hist[n] = append(hist[n], c)
	}
	for _, h := range hist {
		sort.Slice(h, func(i, j int) bool { return attemptOf(h[i]) < attemptOf(h[j]) })
	}
	if ps.startTime.IsZero() {
		ps.startTime = time.Now()
		if pod.Status.StartTime != nil {
			ps.startTime = pod.Status.StartTime.Time
		}
	}
	if !ps.volumesReady {
		if err := a.prepareVolumes(ctx, pod); err != nil {
			for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
				ps.configErr[c.Name] = err.Error()
			}
			a.rec.Event(o, "Warning", "FailedMount", err.Error())
		} else {
			ps.volumesReady = true
			clear(ps.configErr)
		}
	}

	status := corev1.PodStatus{
		HostIP:    a.cfg.Address,
		HostIPs:   []corev1.HostIP{{IP: a.cfg.Address}},
		PodIP:     a.cfg.Address,
		PodIPs:    []corev1.PodIP{{IP: a.cfg.Address}},
		StartTime: &metav1.Time{Time: ps.startTime},
		QOSClass:  pod.Status.QOSClass,
	}
	initialized, initFailed := true, false
	for _, c := range pod.Spec.InitContainers {
		if !initialized || initFailed {
			status.InitContainerStatuses = append(status.InitContainerStatuses, waitingStatus(c, "PodInitializing", ""))
			continue
		}
		st, out := a.syncContainer(ctx, ps, c, hist[c.Name], true)
		status.InitContainerStatuses = append(status.InitContainerStatuses, st)
		switch out {
		case outSucceeded:
		case outFailed:
			initFailed = true
		default:
			initialized = false
		}
	}
	counts := map[outcome]int{}
	started := false
	allReady := true
	for _, c := range pod.Spec.Containers {
		var st corev1.ContainerStatus
		out := outPending
		if initialized && !initFailed {
			st, out = a.syncContainer(ctx, ps, c, hist[c.Name], false)
		} else {
			st = waitingStatus(c, "PodInitializing", "")
		}
		counts[out]++
		started = started || len(hist[c.Name]) > 0
		allReady = allReady && st.Ready
		status.ContainerStatuses = append(status.ContainerStatuses, st)
	}
	n := len(pod.Spec.Containers)
	switch {
	case initFailed:
		status.Phase = corev1.PodFailed
	case !initialized:
		status.Phase = corev1.PodPending
	case counts[outSucceeded]+counts[outFailed] == n && n > 0:
		status.Phase = corev1.PodSucceeded
		if counts[outFailed] > 0 {
			status.Phase = corev1.PodFailed
		}
	case counts[outRunning] > 0 || started:
		status.Phase = corev1.PodRunning
	default:
		status.Phase = corev1.PodPending
	}
	if status.Phase == corev1.PodSucceeded || status.Phase == corev1.PodFailed {
		if !ps.final {
			a.stopAll(ctx, cs, 0)
		}
		ps.final = true
	}
	containersReady := initialized && !initFailed && allReady && counts[outRunning] == n
	status.Conditions = conditions(pod, initialized && !initFailed || status.Phase == corev1.PodSucceeded, containersReady)
	b, err := json.Marshal(status)
	if err != nil {
		return err
	}
	a.mu.Lock()
	ps.desired = b
	a.mu.Unlock()
	return nil
}

func conditions(pod *corev1.Pod, initialized, ready bool) []corev1.PodCondition {
	now := metav1.Now()
	cond := func(t corev1.PodConditionType, ok bool, reason string) corev1.PodCondition {
		s := corev1.ConditionFalse
		if ok {
			s, reason = corev1.ConditionTrue, ""
		}
		c := corev1.PodCondition{Type: t, Status: s, Reason: reason, LastTransitionTime: now}
		for _, old := range pod.Status.Conditions {
			if old.Type == t && old.Status == s {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		return c
	}
	return []corev1.PodCondition{
		cond(corev1.PodScheduled, true, ""),
		cond(corev1.PodInitialized, initialized, "ContainersNotInitialized"),
		cond(corev1.ContainersReady, ready, "ContainersNotReady"),
		cond(corev1.PodReady, ready, "ContainersNotReady"),
	}
}

func waitingStatus(c corev1.Container, reason, msg string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}
}

func terminated(st containers.Status) *corev1.ContainerStateTerminated {
	t := &corev1.ContainerStateTerminated{ExitCode: int32(st.ExitCode), Reason: "Completed",
		StartedAt: metav1.NewTime(st.StartedAt), FinishedAt: metav1.NewTime(st.FinishedAt), ContainerID: "capstan://" + st.Spec.ID}
	if st.State == containers.StateUnknown {
		t.ExitCode, t.Reason, t.Message = 137, "Error", "the container's process vanished without a recorded exit"
		t.FinishedAt = t.StartedAt
		return t
	}
	switch {
	case st.OOMKilled:
		t.Reason = "OOMKilled" // the kernel killed it at its memory limit, as the kubelet reports
	case st.ExitCode != 0:
		t.Reason = "Error"
	}
	if st.Signal != "" {
		t.Message = "terminated by signal " + st.Signal
	}
	return t
}

// backoff is the wait before restarting a container whose attempt n ended.
func (a *Agent) backoff(last containers.Status) time.Duration {
	if !last.FinishedAt.IsZero() && last.FinishedAt.Sub(last.StartedAt) > 10*time.Minute {
		return a.cfg.BackoffBase
	}
	d := a.cfg.BackoffBase
	for i := 0; i < attemptOf(last) && d < a.cfg.BackoffMax; i++ {
		d *= 2
	}
	return min(d, a.cfg.BackoffMax)
}

// syncContainer takes one step for a container and reports its status.
func (a *Agent) syncContainer(ctx context.Context, ps *podState, c corev1.Container, hist []containers.Status, isInit bool) (corev1.ContainerStatus, outcome) {
	pod := ps.pod
	var last, prev *containers.Status
	if n := len(hist); n > 0 {
		last = &hist[n-1]
		if n > 1 {
			prev = &hist[n-2]
		}
		// Keep only the last two attempts: the current one and "previous".
		for _, old := range hist[:max(0, n-2)] {
			a.cfg.Runtime.Remove(ctx, old.Spec.ID)
		}
	}
	st := corev1.ContainerStatus{Name: c.Name, Image: c.Image}
	if last == nil {
		if ps.final {
			st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "PodCompleted"}
			return st, outPending
		}
		return a.startContainer(ctx, ps, c, 0, st)
	}
	st.RestartCount = int32(attemptOf(*last))
	st.ContainerID = "capstan://" + last.Spec.ID
	if prev != nil {
		st.LastTerminationState.Terminated = terminated(*prev)
	}
	if last.State == containers.StateRunning {
		st.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(last.StartedAt)}
		started, ready := a.probe(ctx, ps, c, *last, isInit)
		st.Started = &started
		st.Ready = ready
		return st, outRunning
	}
	term := terminated(*last)
	failed := term.ExitCode != 0
	restart := pod.Spec.RestartPolicy == corev1.RestartPolicyAlways || pod.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && failed
	if isInit {
		restart = pod.Spec.RestartPolicy != corev1.RestartPolicyNever && failed
	}
	if !restart || ps.final {
		st.State.Terminated = term
		if failed {
			return st, outFailed
		}
		return st, outSucceeded
	}
	st.LastTerminationState = corev1.ContainerState{Terminated: term}
	finished := last.FinishedAt
	if finished.IsZero() {
		finished = last.StartedAt
	}
	if wait := a.backoff(*last); time.Since(finished) < wait {
		msg := fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", wait, c.Name, pod.Name, pod.Namespace, pod.UID)
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: msg}
		if !ps.backoffNoted[last.Spec.ID] {
			ps.backoffNoted[last.Spec.ID] = true
			a.rec.Event(ps.obj, "Warning", "BackOff", "Back-off restarting failed container "+c.Name)
		}
		return st, outPending
	}
	return a.startContainer(ctx, ps, c, attemptOf(*last)+1, st)
}

func (a *Agent) startContainer(ctx context.Context, ps *podState, c corev1.Container, attempt int, st corev1.ContainerStatus) (corev1.ContainerStatus, outcome) {
	pod := ps.pod
	if len(c.Command) == 0 {
		msg := "container has no command: capstan runs containers as local processes and has no image to read one from; set command (and args) — image " + strconv.Quote(c.Image) + " is kept for display only"
		if ps.configErr[c.Name] != msg {
			ps.configErr[c.Name] = msg
			a.rec.Event(ps.obj, "Warning", "Failed", "Error: "+msg)
		}
		st.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "NoCommand", Message: msg}}
		return st, outPending
	}
	if msg := ps.configErr[c.Name]; msg != "" && !ps.volumesReady {
		st.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: msg}}
		return st, outPending
	}
	env, err := a.containerEnv(ctx, pod, c)
	if err != nil {
		if ps.configErr[c.Name] != err.Error() {
			ps.configErr[c.Name] = err.Error()
			a.rec.Event(ps.obj, "Warning", "Failed", "Error: "+err.Error())
		}
		st.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: err.Error()}}
		return st, outPending
	}
	delete(ps.configErr, c.Name)
	argv := expandAll(append(append([]string{}, c.Command...), c.Args...), env)
	spec := containers.Spec{
		ID:      fmt.Sprintf("%s_%s_%d", pod.UID, c.Name, attempt),
		Command: argv,
		Env:     env,
		Dir:     c.WorkingDir,
		Labels: map[string]string{labelPodUID: string(pod.UID), labelNamespace: pod.Namespace, labelPodName: pod.Name,
			labelContainer: c.Name, labelAttempt: strconv.Itoa(attempt)},
	}
	if lim := c.Resources.Limits; lim != nil {
		spec.Limits = cgroups.Limits{MemoryBytes: lim.Memory().Value(), CPUMillis: lim.Cpu().MilliValue()}
	}
	if a.runtimeName != "fake" {
		a.checkPorts(ps, c)
		if msg := a.unenforced(spec.Limits); msg != "" && attempt == 0 {
			a.rec.Event(ps.obj, "Warning", "LimitsNotEnforced", "container "+c.Name+": "+msg)
		}
	}
	got, err := a.cfg.Runtime.Start(ctx, spec)
	if err != nil && got.Spec.ID == "" {
		st.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "RunContainerError", Message: err.Error()}}
		a.rec.Event(ps.obj, "Warning", "Failed", "Error: "+err.Error())
		return st, outPending
	}
	if err != nil {
		a.rec.Event(ps.obj, "Warning", "Failed", "Error: "+err.Error())
	} else {
		a.rec.Event(ps.obj, "Normal", "Started", "Started container "+c.Name)
	}
	st.RestartCount = int32(attempt)
	st.ContainerID = "capstan://" + spec.ID
	st.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	a.poke() // report the started process promptly
	return st, outRunning
}

// startTerminate stops a pod marked for deletion and completes the delete.
func (a *Agent) startTerminate(ctx context.Context, ps *podState, cs []containers.Status) {
	a.mu.Lock()
	if ps.terminating {
		a.mu.Unlock()
		return
	}
	ps.terminating = true
	a.mu.Unlock()
	pod := ps.pod
	grace := int64(30)
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.DeletionGracePeriodSeconds != nil {
		grace = *pod.DeletionGracePeriodSeconds
	}
	go func() {
		for _, c := range cs {
			if c.State == containers.StateRunning {
				a.rec.Event(ps.obj, "Normal", "Killing", "Stopping container "+c.Spec.Labels[labelContainer])
			}
		}
		a.stopAll(ctx, cs, time.Duration(grace)*time.Second)
		_, err := a.cfg.Client.Resource("", "v1", "pods").Namespace(pod.Namespace).Delete(ctx, pod.Name,
			map[string]any{"gracePeriodSeconds": 0, "preconditions": map[string]any{"uid": string(pod.UID)}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			a.log.Warn("completing pod deletion", "pod", pod.Namespace+"/"+pod.Name, "err", err)
			time.Sleep(time.Second)
			a.mu.Lock()
			ps.terminating = false // retried on a later sync
			a.mu.Unlock()
			a.poke()
			return
		}
		a.mu.Lock()
		delete(a.state, string(pod.UID))
		a.mu.Unlock()
		a.poke()
	}()
}

// flushStatus writes the pod statuses that changed, without blocking the
// sync loop on a slow or absent hub.
func (a *Agent) flushStatus(ctx context.Context) {
	a.mu.Lock()
	if a.flushing {
		a.mu.Unlock()
		return
	}
	type write struct {
		ps       *podState
		ns, name string
		body     []byte
	}
	var ws []write
	for _, ps := range a.state {
		if ps.desired != nil && string(ps.desired) != string(ps.reported) && !ps.terminating {
			ws = append(ws, write{ps, ps.pod.Namespace, ps.pod.Name, ps.desired})
		}
	}
	if len(ws) == 0 {
		a.mu.Unlock()
		return
	}
	a.flushing = true
	a.mu.Unlock()
	go func() {
		defer func() {
			a.mu.Lock()
			a.flushing = false
			a.mu.Unlock()
		}()
		pods := a.cfg.Client.Resource("", "v1", "pods")
		for _, w := range ws {
			patch := append(append([]byte(`{"status":`), w.body...), '}')
			_, err := pods.Namespace(w.ns).Patch(ctx, w.name, "status", mergePatch, patch)
			if err != nil {
				if ctx.Err() == nil && !apierrors.IsNotFound(err) {
					a.log.Debug("writing pod status", "pod", w.ns+"/"+w.name, "err", err)
				}
				continue
			}
			a.mu.Lock()
			w.ps.reported = w.body
			a.mu.Unlock()
		}
	}()
}

// checkPorts reports a TCP containerPort that something on the node already
// listens on: pods share the node's network, so the process cannot bind it.
func (a *Agent) checkPorts(ps *podState, c corev1.Container) {
	for _, p := range c.Ports {
		if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP || p.ContainerPort == 0 {
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("", strconv.Itoa(int(p.ContainerPort))))
		if err != nil {
			a.rec.Event(ps.obj, "Warning", "PortInUse", fmt.Sprintf("container %s: containerPort %d is already in use on the node: %v", c.Name, p.ContainerPort, err))
			continue
		}
		ln.Close()
	}
}
