package io.etcdoperator.operator.seed;

/** Seed 000's scenarios on etcd 3.4: see {@link Seed000Scenarios}. */
class Seed000ScenariosEtcd34IT extends Seed000Scenarios {
  Seed000ScenariosEtcd34IT() {
    super("3.4");
  }
}
