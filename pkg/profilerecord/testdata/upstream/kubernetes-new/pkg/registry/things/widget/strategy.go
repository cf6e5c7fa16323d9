package widget

type widgetStrategy struct{}

var Strategy = widgetStrategy{}

func (widgetStrategy) NamespaceScoped() bool {
	return false
}
