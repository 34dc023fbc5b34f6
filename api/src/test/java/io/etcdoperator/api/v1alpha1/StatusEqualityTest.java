package io.etcdoperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Status equality decides whether the operator writes status: every field of every status type must
 * take part in {@code equals} and {@code hashCode}, or a change goes unwritten (or an unchanged
 * status is rewritten). Each field in turn gets a value on one of two fresh instances.
 */
class StatusEqualityTest {
  static Stream<Class<?>> statusTypes() {
    return Stream.of(
        EtcdClusterStatus.class,
        MemberStatus.class,
        RebuildStatus.class,
        RestoreStatus.class,
        EtcdBackupStatus.class,
        BackupSnapshot.class,
        EtcdBackupScheduleStatus.class);
  }

  @ParameterizedTest
  @MethodSource("statusTypes")
  void everyFieldTakesPartInEqualsAndHashCode(Class<?> type) throws Exception {
    List<Field> fields =
        Stream.of(type.getDeclaredFields())
            .filter(f -> !Modifier.isStatic(f.getModifiers()))
            .toList();
    assertThat(fields).isNotEmpty();
    for (Field f : fields) {
      Object a = type.getConstructor().newInstance();
      Object b = type.getConstructor().newInstance();
      assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
      f.setAccessible(true);
      f.set(b, valueOf(f.getType()));
      assertThat(a).as(type.getSimpleName() + "." + f.getName() + " in equals").isNotEqualTo(b);
      assertThat(a.hashCode())
          .as(type.getSimpleName() + "." + f.getName() + " in hashCode")
          .isNotEqualTo(b.hashCode());
    }
  }

  private static Object valueOf(Class<?> type) {
    if (type == String.class) {
      return "x";
    }
    if (type == Long.class) {
      return 42L;
    }
    if (type == Integer.class) {
      return 42;
    }
    if (type == Boolean.class) {
      return Boolean.TRUE;
    }
    if (type == List.class) {
      return List.of(new ConditionBuilder().withType("T").build());
    }
    if (type == RebuildStatus.class) {
      RebuildStatus r = new RebuildStatus();
      r.setSurvivor("s");
      return r;
    }
    if (type == RestoreStatus.class) {
      RestoreStatus r = new RestoreStatus();
      r.setSource("s");
      return r;
    }
    if (type == BackupSnapshot.class) {
      BackupSnapshot s = new BackupSnapshot();
      s.setUri("u");
      return s;
    }
    throw new IllegalArgumentException("no test value for " + type);
  }
}
