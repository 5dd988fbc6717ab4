package scheduler

import (
	"github.com/capstan-io/capstan/apiserver/api"
)

// onPod keeps the cache's accounting and queues pending pods.
func (s *Scheduler) onPod(o api.Object) {
	p, err := ParsePod(o)
	if err != nil {
		s.log.Error("ignoring pod", "err", err)
		return
	}
	if p.NodeName != "" || p.Terminal {
		if s.cache.SetPod(p) {
			s.retryUnschedulable() // resources were freed
		}
		s.dropUnschedulable(p.Key)
		return
	}
	if s.responsible(p) {
		s.mu.Lock()
		_, waiting := s.unschedulable[p.Key]
		s.mu.Unlock()
		if !waiting { // a waiting pod's own status write must not retry it
			s.queue.Add(p.Key)
		}
	}
}

func (s *Scheduler) onPodDelete(o api.Object) {
	key := o.Namespace() + "/" + o.Name()
	s.dropUnschedulable(key)
	if s.cache.RemovePod(key) {
		s.retryUnschedulable()
	}
}

// onNode records the node and retries waiting pods if it changed in a way
// that matters to scheduling (heartbeats alone do not).
func (s *Scheduler) onNode(o api.Object) {
	n, err := ParseNode(o)
	if err != nil {
		s.log.Error("ignoring node", "err", err)
		return
	}
	if s.cache.SetNode(n) {
		s.retryUnschedulable()
	}
}

func (s *Scheduler) onNodeDelete(o api.Object) { s.cache.RemoveNode(o.Name()) }

func (s *Scheduler) dropUnschedulable(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.unschedulable, key)
}
