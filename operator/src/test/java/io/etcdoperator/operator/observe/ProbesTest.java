package io.etcdoperator.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** At which URLs of cluster {@code c} another member answered than the URL stands for. */
class ProbesTest {
  /**
   * Probes are {@code ordinal:id} ({@code -}: did not answer; {@code 0}: answered without an ID),
   * the member list {@code name:id} (empty name: added, not started), IDs in base 36; {@code none}:
   * no member list.
   */
  @ParameterizedTest(name = "probes {0}, list {1}: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "0:a 1:b 2:c | c-0:a c-1:b c-2:c | ''",
        "0:a 1:x 2:c | c-0:a c-1:b c-2:c | 1", // an unknown member at 1's address
        "0:a 1:c 2:c | c-0:a c-1:b c-2:c | 1", // 2's member answers at 1's address
        "0:a 1:- 2:c | c-0:a c-1:b c-2:c | ''", // 1 does not answer: nothing to tell
        "0:a 1:0 2:c | c-0:a c-1:b c-2:c | ''", // 1 answered without its ID
        "0:t | t-0:t | 0", // the list came from another cluster's member, at 0's address
        "0:a 1:b 2:n | c-0:a c-1:b :n | ''", // 2 was added and has not started: no name yet
        "0:a 1:b 2:r | c-0:a c-1:b | ''", // 2 is not in the list (removed, still running)
        "0:a 1:x | none | ''",
      })
  void urlsAtWhichAnotherMemberAnswered(String probes, String list, String expected) {
    TreeMap<Integer, MemberProbe> byOrdinal = new TreeMap<>();
    for (String p : probes.split(" ")) {
      int ordinal = Integer.parseInt(p.split(":")[0]);
      String id = p.split(":")[1];
      byOrdinal.put(
          ordinal,
          id.equals("-")
              ? MemberProbe.unreachable(ordinal, url(ordinal), "connection refused")
              : answering(ordinal, Long.parseLong(id, 36)));
    }
    Optional<MemberList> members =
        list.equals("none")
            ? Optional.empty()
            : Optional.of(
                new MemberList(
                    Arrays.stream(list.split(" "))
                        .map(
                            m ->
                                new MemberList.Entry(
                                    Long.parseLong(m.split(":")[1], 36),
                                    m.split(":")[0],
                                    List.of(),
                                    List.of(),
                                    false))
                        .toList(),
                    0));
    List<String> urls =
        expected.isEmpty()
            ? List.of()
            : Arrays.stream(expected.split(" ")).map(o -> url(Integer.parseInt(o))).toList();
    assertThat(Probes.answeredForAnother("c", byOrdinal, members)).isEqualTo(urls);
  }

  private static String url(int ordinal) {
    return "http://c-" + ordinal + ".c-headless.ns.svc:2379";
  }

  private static MemberProbe answering(int ordinal, long id) {
    return new MemberProbe(
        ordinal, url(ordinal), true, null, 1, id, 0xa, 2, 10, false, "3.5.30", 1, List.of(), 5, 0);
  }
}
