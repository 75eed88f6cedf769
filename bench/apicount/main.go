// Command apicount counts the exported top-level names and methods of the
// module's public packages (struct fields not counted), as issue 20 of
// the project measures the API an embedder has to hold in their head.
//
//	go run ./bench/apicount [-v]
//
// It reads every non-test Go file of each package for every platform (a
// name declared once per platform counts once).
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

var public = []string{"statusfile", "reader", "watch", "perm", "conformance", "remote"}

func main() {
	verbose := flag.Bool("v", false, "list the names")
	flag.Parse()
	total := 0
	for _, dir := range public {
		names, err := exported(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "apicount:", err)
			os.Exit(1)
		}
		fmt.Printf("%-12s %4d\n", dir, len(names))
		if *verbose {
			for _, n := range names {
				fmt.Println("   ", n)
			}
		}
		total += len(names)
	}
	fmt.Printf("%-12s %4d\n", "total", total)
}

// exported returns the sorted exported names of the package in dir:
// functions, types, variables, constants, and the methods of exported
// types as Type.Method.
func exported(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					seen[d.Name.Name] = true
				} else if recv := recvType(d.Recv.List[0].Type); ast.IsExported(recv) {
					seen[recv+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							seen[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								seen[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

func recvType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvType(e.X)
	case *ast.IndexExpr:
		return recvType(e.X)
	case *ast.IndexListExpr:
		return recvType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}
