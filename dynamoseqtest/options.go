package dynamoseqtest

// Option changes the server Start returns. Options are functions, as in
// the functional-options idiom, so that the common call stays Start(t).
type Option func(*config)

type config struct {
	service *Service
	dbPath  string
}

// WithService makes Start return a model of Amazon DynamoDB of the test's
// own: a server on a loopback port, in front of DynamoDB Local, that adds
// the service's per-partition capacity, both throttle forms, transaction
// conflicts and latency, as svc sets them (the zero Service: as AWS
// documents them). The package overview lists what it models. Other
// operations pass through unchanged. Clients from Client and worker
// processes given Endpoint share the model; it stops when the test ends.
func WithService(svc Service) Option {
	return func(c *config) { c.service = &svc }
}

// WithDBPath makes Start return a DynamoDB Local of the test's own, on a
// free loopback port, that keeps its data in files in the folder dir, so
// that they survive Kill and Restart. It stops when the test ends. With
// WithService, the model stands in front of it.
func WithDBPath(dir string) Option {
	return func(c *config) { c.dbPath = dir }
}
