package printers

import (
	"slices"
	"time"

	"github.com/capstan-io/capstan/apiserver/api"
)

// printer is one kind's column definitions and the function filling a row.
type printer struct {
	columns []api.TableColumnDefinition
	row     func(o api.Object, now time.Time) []any
}

// printers maps a kind to its printer; kinds not listed use defaultPrinter.
var printers = map[string]printer{
	"Pod":            {podColumns, podRow},
	"Node":           {nodeColumns, nodeRow},
	"Deployment":     {deploymentColumns, deploymentRow},
	"ReplicaSet":     {replicaSetColumns, replicaSetRow},
	"Namespace":      {namespaceColumns, namespaceRow},
	"ConfigMap":      {configMapColumns, configMapRow},
	"Secret":         {secretColumns, secretRow},
	"ServiceAccount": {serviceAccountColumns, serviceAccountRow},
	"Lease":          {leaseColumns, leaseRow},
	"Service":        {serviceColumns, serviceRow},
	"Endpoints":      {endpointsColumns, endpointsRow},
	"Event":          {eventColumns, eventRow},
	"CustomResourceDefinition": {
		[]api.TableColumnDefinition{nameColumn, {Name: "Created At", Type: "date", Description: descCreationTimestamp}},
		func(o api.Object, _ time.Time) []any {
			return []any{o.Name(), api.NestedString(o, "metadata", "creationTimestamp")}
		},
	},
}

// defaultPrinter is what kube-apiserver shows for a custom resource without
// additionalPrinterColumns: the name and the age.
var defaultPrinter = printer{
	columns: []api.TableColumnDefinition{
		nameColumn,
		{Name: "Age", Type: "date", Description: descCreationTimestamp},
	},
	row: func(o api.Object, now time.Time) []any { return []any{o.Name(), age(o, now)} },
}

// Columns returns the column definitions for a kind (the kind string, e.g.
// "Pod"); unknown kinds get Name and Age. The slice is the caller's to keep.
func Columns(kind string) []api.TableColumnDefinition {
	return slices.Clone(lookup(kind).columns)
}

// Row returns the cells for one object of that kind, in the same order as
// Columns. now is the current time for AGE-like cells.
func Row(kind string, o api.Object, now time.Time) []any {
	return lookup(kind).row(o, now)
}

func lookup(kind string) printer {
	if p, ok := printers[kind]; ok {
		return p
	}
	return defaultPrinter
}

// Descriptions shared by many kinds, copied from the Kubernetes API's swagger docs.
const (
	descName = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"

	descCreationTimestamp = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"

	descContainers = "Names of each container in the template."
	descImages     = "Images referenced by each container in the template."
)

var (
	nameColumn = api.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: descName}
	ageColumn  = api.TableColumnDefinition{Name: "Age", Type: "string", Description: descCreationTimestamp}
)

// column is a normal column; wide marks one shown only with -o wide.
func column(name, typ, desc string) api.TableColumnDefinition {
	return api.TableColumnDefinition{Name: name, Type: typ, Description: desc}
}

func wide(name, typ, desc string) api.TableColumnDefinition {
	return api.TableColumnDefinition{Name: name, Type: typ, Description: desc, Priority: 1}
}
