package io.etcdoperator.sandbox.api.handlers;

import static io.etcdoperator.sandbox.api.Responses.status;

import io.etcdoperator.sandbox.api.ApiPath;
import io.etcdoperator.sandbox.api.ApiRequest;
import io.etcdoperator.sandbox.api.Handler;
import io.etcdoperator.sandbox.api.PodProcesses;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The {@code pods/exec}, {@code attach} and {@code portforward} subresources ({@code kubectl exec},
 * {@code attach}, {@code port-forward}), which need a streaming connection the mock server cannot
 * make: refused with {@code 501} and a message that says so and gives the command that does the
 * same on this machine (in the container's mount and UTS namespaces, where its hosts file, DNS and
 * volumes are).
 */
public final class StreamingHandler implements Handler {
  private volatile PodProcesses pods;

  /** Where messages find a pod's main process (the kubelet). */
  public void setPodProcesses(PodProcesses pods) {
    this.pods = pods;
  }

  @Override
  public MockResponse handle(ApiRequest request) {
    ApiPath api = request.api();
    String how = "";
    PodProcesses processes = this.pods;
    long pid = processes == null ? -1 : processes.pid(api.namespace(), api.name());
    if (pid > 0) {
      how =
          "; to run a command in its container on this machine: nsenter --target "
              + pid
              + " --mount --uts -- <command> (e.g. etcdctl --endpoints=http://"
              + api.name()
              + ":2379 endpoint health)";
    }
    return status(
        501,
        "NotImplemented",
        "the sandbox does not serve pods/"
            + api.subresource()
            + " (it needs a streaming connection the sandbox's API server cannot make)"
            + how);
  }
}
