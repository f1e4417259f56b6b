package equalizer

// Placer assigns sessions (views, applications) to pipes from a shared pool,
// after the go-livepeer GPU scheduler discussion: a new session goes to the
// least-loaded pipe, adding its estimated cost there (set-up is expensive,
// so a session stays where it was placed: sticky), and the search for the
// least-loaded pipe starts from a ratcheting index so that ties spread.
type Placer struct {
	Load     []float64 // estimated cost placed on each pipe
	sessions map[string]placed
	ratchet  int
}

type placed struct {
	pipe int
	cost float64
}

// NewPlacer returns a placer for n pipes.
func NewPlacer(n int) *Placer {
	return &Placer{Load: make([]float64, n), sessions: map[string]placed{}}
}

// Place returns the pipe for session, placing it on the least-loaded pipe
// with its estimated cost the first time it is seen.
func (p *Placer) Place(session string, cost float64) int {
	if s, ok := p.sessions[session]; ok {
		return s.pipe
	}
	n := len(p.Load)
	best := -1
	for k := 0; k < n; k++ {
		i := (p.ratchet + k) % n
		if best < 0 || p.Load[i] < p.Load[best] {
			best = i
		}
	}
	p.ratchet = (best + 1) % n
	p.Load[best] += cost
	p.sessions[session] = placed{best, cost}
	return best
}

// Release removes a finished session's cost from its pipe.
func (p *Placer) Release(session string) {
	if s, ok := p.sessions[session]; ok {
		p.Load[s.pipe] -= s.cost
		delete(p.sessions, session)
	}
}

// RoundRobin is the baseline: sessions go to pipes in turn, also sticky.
type RoundRobin struct {
	n        int
	next     int
	sessions map[string]int
}

// NewRoundRobin returns the baseline placer for n pipes.
func NewRoundRobin(n int) *RoundRobin { return &RoundRobin{n: n, sessions: map[string]int{}} }

// Place returns the session's pipe, assigning the next one the first time.
func (r *RoundRobin) Place(session string, _ float64) int {
	if p, ok := r.sessions[session]; ok {
		return p
	}
	p := r.next % r.n
	r.next++
	r.sessions[session] = p
	return p
}

// Release forgets a finished session.
func (r *RoundRobin) Release(session string) { delete(r.sessions, session) }
