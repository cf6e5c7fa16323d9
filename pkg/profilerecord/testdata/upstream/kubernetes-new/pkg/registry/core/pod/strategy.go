package pod

type podStrategy struct{}

var Strategy = podStrategy{}

func (podStrategy) NamespaceScoped() bool {
	return true
}
