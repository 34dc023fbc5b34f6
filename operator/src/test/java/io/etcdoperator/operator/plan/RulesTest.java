package io.etcdoperator.operator.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdoperator.operator.model.Target;
import io.etcdoperator.operator.observe.ClusterView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The planner's rule list: described in its Javadoc in the order it runs, each rule exercised. */
class RulesTest {
  private static final Path PLANNER =
      Path.of("src/main/java/io/etcdoperator/operator/plan/Planner.java");

  @Test
  void theJavadocListsEveryRuleInTheOrderTheyAreAsked() throws IOException {
    String source = Files.readString(PLANNER);
    String javadoc = source.substring(0, source.indexOf("public final class Planner"));
    List<String> described = new ArrayList<>();
    Matcher m = Pattern.compile("<li><b>(\\w+)</b>").matcher(javadoc);
    while (m.find()) {
      described.add(m.group(1));
    }
    assertThat(described)
        .containsExactlyElementsOf(Planner.RULES.stream().map(Rule::name).toList());
  }

  @Test
  void rulesHaveDistinctNames() {
    assertThat(Planner.RULES.stream().map(Rule::name).distinct().count())
        .isEqualTo(Planner.RULES.size());
  }

  @Test
  void everyRuleFiresInSomeRowOfThePlannerTable() {
    Set<String> fired = new LinkedHashSet<>();
    PlannerTest.rows()
        .forEach(
            a -> {
              Object[] row = a.get();
              fired.add(Planner.plan((Target) row[1], (ClusterView) row[2]).rule());
            });
    assertThat(fired).containsAll(Planner.RULES.stream().map(Rule::name).toList());
  }
}
