# The container image of the Kubernetes example (configs/selfplay-k8s-indexed-job.yaml):
# every binary, built by `make build` as on a developer's machine but without cgo
# (static, so any Linux base image runs them), in /app/bin, and the shipped configs
# in /app/configs, with /app as the working directory: the README's command lines
# (bin/selfplay -config configs/...) run unchanged inside it.
#
#   docker build -t registry.example.com/chessforge:latest .
#   docker push registry.example.com/chessforge:latest
#
# The build keeps the Makefile's GOAMD64=v2 and profile-guided optimisation; for
# nodes with AVX2 change the build line to `make build GOAMD64=v3`.
#
# Not built here: the project's machines have no Docker engine. configs/manifests_test.go
# checks what it can without one: every file copied from the build context exists
# and is not in .dockerignore, the build stage's commands run in a copy of the
# context build the files the runtime stage copies, static, and the Kubernetes
# manifests name this image and run binaries and config files it holds.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# The modules first: a change of source does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
RUN make build

FROM debian:bookworm-slim
WORKDIR /app
COPY --from=build /src/bin/ /app/bin/
COPY configs/ /app/configs/
ENV PATH=/app/bin:$PATH
# Root, as the base image: the pods write into a shared volume, and the
# ReadWriteMany kinds (NFS and the like) often ignore a pod's fsGroup.
CMD ["/app/bin/selfplay", "-h"]
