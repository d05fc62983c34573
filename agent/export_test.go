package agent

// RegistryChanges is how many changes the bridge made to the SDK's resource registry.
func (m *MCP) RegistryChanges() int {
	m.resMu.Lock()
	defer m.resMu.Unlock()
	return m.registryChanges
}
