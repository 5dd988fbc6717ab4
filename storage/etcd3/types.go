package etcd3

import "go.etcd.io/etcd/api/v3/mvccpb"

type mvccKV = mvccpb.KeyValue
