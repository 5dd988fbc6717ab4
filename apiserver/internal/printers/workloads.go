package printers

import (
	"fmt"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

var deploymentColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Ready", "string", "Number of the pod with ready state"),
	column("Up-to-date", "string", "Total number of non-terminating pods targeted by this deployment that have the desired template spec."),
	column("Available", "string", "Total number of available non-terminating pods (ready for at least minReadySeconds) targeted by this deployment."),
	ageColumn,
	wide("Containers", "string", descContainers),
	wide("Images", "string", descImages),
	wide("Selector", "string", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels."),
}

// deploymentRow is kube's printDeployment. Unlike the ReplicaSet printer, kube
// prints an empty selector as "" and an invalid one as "<invalid>".
func deploymentRow(o api.Object, now time.Time) []any {
	selector, err := labelSelector(api.NestedMap(o, "spec", "selector"))
	if err != nil {
		selector = "<invalid>"
	}
	names, images := containerCells(o)
	return []any{
		o.Name(),
		fmt.Sprintf("%d/%d", api.Int64(api.Nested(o, "status", "readyReplicas")), int64Or(o, 1, "spec", "replicas")),
		api.Int64(api.Nested(o, "status", "updatedReplicas")),
		api.Int64(api.Nested(o, "status", "availableReplicas")),
		age(o, now),
		names,
		images,
		selector,
	}
}

var replicaSetColumns = []api.TableColumnDefinition{
	nameColumn,
	column("Desired", "integer", "Replicas is the number of desired pods. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"),
	column("Current", "integer", "Replicas is the most recently observed number of non-terminating pods. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicaset"),
	column("Ready", "integer", "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition."),
	ageColumn,
	wide("Containers", "string", descContainers),
	wide("Images", "string", descImages),
	wide("Selector", "string", "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors"),
}

// replicaSetRow is kube's printReplicaSet.
func replicaSetRow(o api.Object, now time.Time) []any {
	names, images := containerCells(o)
	return []any{
		o.Name(),
		int64Or(o, 1, "spec", "replicas"),
		api.Int64(api.Nested(o, "status", "replicas")),
		api.Int64(api.Nested(o, "status", "readyReplicas")),
		age(o, now),
		names,
		images,
		formatLabelSelector(api.NestedMap(o, "spec", "selector")),
	}
}
