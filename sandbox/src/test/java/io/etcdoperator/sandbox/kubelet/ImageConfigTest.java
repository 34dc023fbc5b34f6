package io.etcdoperator.sandbox.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ImageConfigTest {
  @Test
  void theLastStageCountsWithItsEntryPointCommandEnvironmentUserAndCopies() {
    ImageConfig c =
        ImageConfig.parse(
            """
            # a comment
            FROM base AS tools
            ENTRYPOINT ["wrong"]
            ENV A=1
            FROM runtime
            LABEL x="y" \\
                  z="w"
            COPY --from=tools /bin/tool /usr/local/bin/
            COPY app.jar /opt/app.jar
            COPY --chown=1:1 conf/opts /opt/opts
            USER 65532:65532
            ENV MALLOC_ARENA_MAX=2 B="two words"
            ENV OLD style value
            ENTRYPOINT ["java", "@/opt/opts", "-jar", "/opt/app.jar"]
            CMD ["run"]
            """);
    assertThat(c.entrypoint()).containsExactly("java", "@/opt/opts", "-jar", "/opt/app.jar");
    assertThat(c.cmd()).containsExactly("run");
    assertThat(c.env())
        .isEqualTo(Map.of("MALLOC_ARENA_MAX", "2", "B", "two words", "OLD", "style value"));
    assertThat(c.user()).isEqualTo("65532:65532");
    assertThat(c.copies()).isEqualTo(Map.of("/opt/app.jar", "app.jar", "/opt/opts", "conf/opts"));
  }

  @Test
  void aShellFormEntryPointIsRefusedByName() {
    assertThatThrownBy(() -> ImageConfig.parse("FROM x\nENTRYPOINT java -jar app.jar\n"))
        .hasMessageContaining("ENTRYPOINT must be in exec form");
  }

  /** The committed Dockerfile, as the kubelet reads it from the class path. */
  @Test
  void theOperatorsImageRunsItsJvmOptionsAndCommandWithTheContainersMemoryLimit() {
    ImageConfig image = OperatorImage.image();
    assertThat(image.user()).isEqualTo("65532:65532");
    assertThat(image.env()).containsEntry("MALLOC_ARENA_MAX", "2");
    List<String> argv = OperatorImage.argv(List.of(), new Quantity("512Mi"));
    assertThat(argv.get(0)).endsWith("/bin/java");
    assertThat(argv).contains("-XX:MaxRAM=536870912");
    assertThat(argv)
        .contains("-XX:+UseSerialGC", "-XX:MaxRAMPercentage=50")
        .noneMatch(a -> a.startsWith("@") || a.startsWith("#"));
    assertThat(argv.get(argv.size() - 1)).isEqualTo("run");
    assertThat(OperatorImage.argv(List.of("agent", "backup"), null))
        .doesNotContain("-XX:MaxRAM=536870912")
        .endsWith("agent", "backup");
    assertThat(OperatorImage.env(Map.of("MALLOC_ARENA_MAX", "4", "X", "1")))
        .containsEntry("MALLOC_ARENA_MAX", "4")
        .containsEntry("X", "1");
  }
}
