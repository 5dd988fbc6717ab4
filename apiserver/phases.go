package apiserver

import "time"

// phaseTimer measures the phases of start-up, logged at debug level.
type phaseTimer struct {
	last time.Time
	list []any
}

func newPhaseTimer() *phaseTimer { return &phaseTimer{last: time.Now()} }

// done ends the phase named name.
func (p *phaseTimer) done(name string) {
	now := time.Now()
	p.list = append(p.list, name, now.Sub(p.last).Round(time.Microsecond))
	p.last = now
}

// add records a phase measured elsewhere.
func (p *phaseTimer) add(name string, d time.Duration) {
	p.list = append(p.list, name, d.Round(time.Microsecond))
}

func (p *phaseTimer) attrs() []any { return p.list }
