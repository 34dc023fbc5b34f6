package io.etcdoperator.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which revision the voters are asked to hash at, under CORRUPT. */
class MemberHashesTest {
  @ParameterizedTest(name = "revisions {0}: {1}")
  @CsvSource({
    "90 90 90, 90",
    "90 90 95, 90", // one member ahead: the quorum's revision, the one ahead shows it
    "88 90 90, 90", // one member behind: it cannot hash there and is not compared
    "88 90 95, 88", // all differ: the lowest, every member has it
    "90 95 90 95, 90", // a tie: the lowest of the most reported
    "42, 42"
  })
  void theRevisionMostVotersReport(String revisions, long expected) {
    List<MemberProbe> voters =
        Arrays.stream(revisions.split(" ")).map(r -> probe(Long.parseLong(r))).toList();
    assertThat(MemberHashes.mostReported(voters)).isEqualTo(expected);
  }

  private static MemberProbe probe(long revision) {
    return new MemberProbe(
        0,
        "http://m:2379",
        true,
        null,
        1,
        2,
        2,
        3,
        100,
        false,
        "3.5.30",
        1,
        List.of(),
        revision,
        0);
  }
}
