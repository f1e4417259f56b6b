package compound

// LayoutIndexes are where the layout named name stands in each canvas
// that has it.
func (c *Config) LayoutIndexes(name string) map[*Canvas]int {
	out := map[*Canvas]int{}
	for _, cv := range c.Canvases {
		for i, l := range cv.Layouts {
			if l != nil && l.Name == name {
				out[cv] = i
			}
		}
	}
	return out
}
