package api

// NodeProxyUser is the CN of the client certificate the hub presents to node
// agents when it proxies pods/log; agents serve only that identity, signed
// by the cluster CA.
const NodeProxyUser = "system:capstan-apiserver"
