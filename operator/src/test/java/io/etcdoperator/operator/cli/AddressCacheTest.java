package io.etcdoperator.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.Security;
import org.junit.jupiter.api.Test;

/**
 * The operator's own DNS cache policy. The JVM reads it once, at the first lookup, so this test
 * checks the settings the operator leaves, not lookups (which the sandbox covers: its pods move to
 * new addresses under the same names).
 */
class AddressCacheTest {
  @Test
  void foundAndMissingNamesAreCachedForOneSecondUnlessTheUserChose() {
    String ttl = Security.getProperty(Main.ADDRESS_CACHE_TTL);
    String negative = Security.getProperty(Main.NEGATIVE_CACHE_TTL);
    try {
      // The JDK's defaults: no positive TTL set (30 s), negative 10 s from java.security.
      Security.setProperty(Main.NEGATIVE_CACHE_TTL, "10");
      Main.shortAddressCache();
      assertThat(Security.getProperty(Main.NEGATIVE_CACHE_TTL)).isEqualTo("1");
      if (ttl == null) {
        assertThat(Security.getProperty(Main.ADDRESS_CACHE_TTL)).isEqualTo("1");
      }

      // A value the user chose stays.
      Security.setProperty(Main.ADDRESS_CACHE_TTL, "5");
      Security.setProperty(Main.NEGATIVE_CACHE_TTL, "0");
      Main.shortAddressCache();
      assertThat(Security.getProperty(Main.ADDRESS_CACHE_TTL)).isEqualTo("5");
      assertThat(Security.getProperty(Main.NEGATIVE_CACHE_TTL)).isEqualTo("0");
    } finally {
      Security.setProperty(Main.ADDRESS_CACHE_TTL, ttl == null ? "1" : ttl);
      Security.setProperty(Main.NEGATIVE_CACHE_TTL, negative == null ? "10" : negative);
    }
  }
}
