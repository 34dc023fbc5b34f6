package io.etcdoperator.operator.seed;

/** Seed 000's scenarios on etcd 3.5: see {@link Seed000Scenarios}. */
class Seed000ScenariosEtcd35IT extends Seed000Scenarios {
  Seed000ScenariosEtcd35IT() {
    super("3.5");
  }
}
