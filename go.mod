module goeq

go 1.22

require github.com/alecthomas/participle/v2 v2.1.4
