package io.etcdoperator.operator.act;

/**
 * Told after every call the operator makes that changes something (a write to the Kubernetes API, a
 * membership call to etcd), with a short label ({@code "etcd addLearner test-3"}, {@code "k8s
 * update StatefulSet test"}). In production it does nothing; crash-safety tests use it to stop the
 * operator right after a chosen call and prove that it converges when it comes back.
 */
@FunctionalInterface
public interface CallHook {
  CallHook NONE = call -> {};

  void after(String call);
}
