module goeq

go 1.26.0

require github.com/alecthomas/participle/v2 v2.1.4

require (
	github.com/klauspost/compress v1.20.3 // indirect
	golang.org/x/image v0.47.0 // indirect
)
