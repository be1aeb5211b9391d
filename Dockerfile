# fount in a container: a static binary on an empty base, run as a
# non-root user, with the data dir on a volume.
#
#   docker build -t fount .
#   docker run -p 8080:8080 -p 8081:8081 -v fount-data:/data fount
#
# The API and the dashboard answer on 8080, tenants' endpoints on 8081
# (give them a host name of their own with FOUNT_ENDPOINT_URL and
# FOUNT_PUBLIC_URL behind a TLS proxy: SECURITY.md).
# The first start prints the owner's API key (also in /data/owner.key).
# Building needs only Go: the guest (guest/fount.wasm) is committed. The
# image has no npm, so give components' npm imports a registry with
# FOUNT_NPM_REGISTRY.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/fount ./cmd/fount
RUN mkdir -p /out/data /out/tmp && chown 65532:65532 /out/data && chmod 1777 /out/tmp

FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/fount /usr/local/bin/fount
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build /out/tmp /tmp
USER 65532:65532
VOLUME ["/data"]
ENV FOUNT_DATA_DIR=/data FOUNT_ADDR=0.0.0.0:8080
EXPOSE 8080 8081
ENTRYPOINT ["/usr/local/bin/fount"]
CMD ["serve"]
