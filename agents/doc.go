// Package agents holds Capstan's spokes and the machinery they share. Agents
// talk to the hub only through apiserver/client (list, watch, write); they
// never import storage or server internals. Each agent is built from
// informer (list+watch into a cache) → workqueue (deduplicating, rate-limited
// keys) → reconcile (level-triggered workers), with leaderelection so two
// replicas are safe and events so users can see what an agent did.
package agents
