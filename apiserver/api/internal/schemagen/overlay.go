package main

// overlay adds the constraints Kubernetes checks in Go validation that a JSON
// Schema can state: enums and numeric bounds. Keys are a definition name, or a
// definition name and a property.
var overlay = map[string]schema{
	"io.k8s.api.apps.v1.DeploymentSpec.replicas":                min(0),
	"io.k8s.api.apps.v1.DeploymentSpec.revisionHistoryLimit":    min(0),
	"io.k8s.api.apps.v1.DeploymentSpec.minReadySeconds":         min(0),
	"io.k8s.api.apps.v1.DeploymentSpec.progressDeadlineSeconds": min(0),
	"io.k8s.api.apps.v1.DeploymentStrategy.type":                enum("Recreate", "RollingUpdate"),
	"io.k8s.api.apps.v1.ReplicaSetSpec.replicas":                min(0),
	"io.k8s.api.apps.v1.ReplicaSetSpec.minReadySeconds":         min(0),
	"io.k8s.api.core.v1.PodSpec.restartPolicy":                  enum("Always", "Never", "OnFailure"),
	"io.k8s.api.core.v1.PodSpec.dnsPolicy":                      enum("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"),
	"io.k8s.api.core.v1.PodSpec.terminationGracePeriodSeconds":  min(0),
	"io.k8s.api.core.v1.PodSpec.activeDeadlineSeconds":          min(1),
	"io.k8s.api.core.v1.Container.imagePullPolicy":              enum("Always", "IfNotPresent", "Never"),
	"io.k8s.api.core.v1.Container.terminationMessagePolicy":     enum("FallbackToLogsOnError", "File"),
	"io.k8s.api.core.v1.ContainerPort.containerPort":            between(1, 65535),
	"io.k8s.api.core.v1.ContainerPort.hostPort":                 between(0, 65535),
	"io.k8s.api.core.v1.ContainerPort.protocol":                 enum("SCTP", "TCP", "UDP"),
	"io.k8s.api.core.v1.ServiceSpec.type":                       enum("ClusterIP", "ExternalName", "LoadBalancer", "NodePort"),
	"io.k8s.api.core.v1.ServiceSpec.sessionAffinity":            enum("ClientIP", "None"),
	"io.k8s.api.core.v1.ServicePort.port":                       between(1, 65535),
	"io.k8s.api.core.v1.ServicePort.nodePort":                   between(0, 65535),
	"io.k8s.api.core.v1.ServicePort.protocol":                   enum("SCTP", "TCP", "UDP"),
	"io.k8s.api.core.v1.EndpointPort.port":                      between(1, 65535),
	"io.k8s.api.core.v1.Taint.effect":                           enum("NoExecute", "NoSchedule", "PreferNoSchedule"),
	"io.k8s.api.core.v1.Toleration.operator":                    enum("Equal", "Exists"),
	"io.k8s.api.core.v1.Event.type":                             enum("Normal", "Warning"),
	"io.k8s.api.coordination.v1.LeaseSpec.leaseDurationSeconds": min(1),
}

func min(n int) schema          { return schema{"minimum": n} }
func between(lo, hi int) schema { return schema{"minimum": lo, "maximum": hi} }
func enum(vals ...string) schema {
	vs := make([]any, len(vals))
	for i, v := range vals {
		vs[i] = v
	}
	return schema{"enum": vs}
}
