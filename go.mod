module goeq

go 1.25

require github.com/alecthomas/participle/v2 v2.1.4

require github.com/klauspost/compress v1.20.3 // indirect
