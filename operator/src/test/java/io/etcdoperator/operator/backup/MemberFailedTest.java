package io.etcdoperator.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.etcd.EtcdException;
import io.etcdoperator.operator.etcd.EtcdFailure;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which failures of a snapshot stream another member may cure (and the agent exits with 75). */
class MemberFailedTest {
  @ParameterizedTest(name = "{0} after {1} s: {2}")
  @CsvSource({
    "UNREACHABLE, 1, true",
    "BAD_SNAPSHOT, 40, true",
    "DEADLINE_EXCEEDED, 31, true",
    "DEADLINE_EXCEEDED, 1800, false",
    "REJECTED, 1, false",
    "ALARM, 1, false",
    "NOT_SUPPORTED_ON_LEARNER, 1, false",
  })
  void onlyAMemberGoneStalledOrCorruptIsTheMembers(
      EtcdFailure failure, long seconds, boolean members) {
    EtcdException e = new EtcdException(failure, "http://m:2379", "what etcd said", null);
    assertThat(BackupAgent.memberFailed(e, Duration.ofSeconds(seconds))).isEqualTo(members);
  }
}
