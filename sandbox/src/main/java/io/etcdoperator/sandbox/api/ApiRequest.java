package io.etcdoperator.sandbox.api;

import io.etcdoperator.sandbox.api.auth.Identity;
import io.etcdoperator.sandbox.api.auth.RequestInfo;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;

/**
 * An authenticated request, taken apart once for the filters and handlers that follow.
 *
 * @param request the request as received
 * @param user who sends it
 * @param info what it asks, in RBAC's terms
 * @param path the path with its query
 * @param bare the path without query or trailing slash
 * @param api the path as an API path, or null (discovery, {@code /version}, {@code /sandbox/...})
 */
public record ApiRequest(
    RecordedRequest request,
    Identity user,
    RequestInfo info,
    String path,
    String bare,
    ApiPath api) {

  /** The request as the user sends it. */
  public static ApiRequest of(Identity user, RecordedRequest request) {
    String path = request.getPath();
    RequestInfo info = RequestInfo.of(request.method(), path);
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    if (bare.length() > 1 && bare.endsWith("/")) {
      bare = bare.substring(0, bare.length() - 1);
    }
    return new ApiRequest(request, user, info, path, bare, ApiPath.parse(bare));
  }

  public HttpMethod method() {
    return request.method();
  }

  /** The value of the query parameter {@code key}, decoded; null when absent. */
  public String queryParameter(String key) {
    return path.contains("?")
        ? RequestInfo.param(path.substring(path.indexOf('?') + 1), key)
        : null;
  }

  /** The body as text, left for whoever reads it next. */
  public String body() {
    return request.getBody() == null
        ? ""
        : new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
  }

  /** The Content-Type header, or "". */
  public String contentType() {
    String ct = request.getHeader("Content-Type");
    return ct == null ? "" : ct;
  }

  /** Whether the client asked for a Table ({@code kubectl get}) in a request that is no watch. */
  public boolean wantsTable() {
    String accept = request.getHeader("Accept");
    return accept != null && accept.contains("as=Table") && !path.contains("watch=true");
  }
}
