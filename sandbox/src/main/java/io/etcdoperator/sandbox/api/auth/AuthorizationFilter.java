package io.etcdoperator.sandbox.api.auth;

import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.Responses;
import io.fabric8.mockwebserver.http.MockResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authorization after authentication, before admission: every request of a non-administrator,
 * watches included, must be allowed by RBAC (see {@link RbacAuthorizer}, which records the
 * decision), else {@code 403 Forbidden} in the real server's words. The administrator is never
 * checked.
 */
public final class AuthorizationFilter {
  private static final Logger LOG = LoggerFactory.getLogger(AuthorizationFilter.class);
  private final RbacAuthorizer authorizer;

  public AuthorizationFilter(RbacAuthorizer authorizer) {
    this.authorizer = authorizer;
  }

  /** Hands the request on if the user may make it, or answers 403. */
  public MockResponse filter(ApiRequest request, Handler next) throws Exception {
    if (!request.user().admin() && !authorizer.authorize(request.user(), request.info())) {
      LOG.debug("{} {} -> 403 for {}", request.method(), request.path(), request.user().name());
      return Responses.forbidden(request.info(), Forbidden.reason(request.user(), request.info()));
    }
    return next.handle(request);
  }
}
