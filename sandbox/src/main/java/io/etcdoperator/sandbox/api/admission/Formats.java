package io.etcdoperator.sandbox.api.admission;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The name and label formats of the API server ({@code k8s.io/apimachinery/pkg/util/validation}),
 * each returning the messages the server gives for a value that breaks it (none: valid).
 */
public final class Formats {
  private static final String DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final String DNS1123_SUBDOMAIN = DNS1123_LABEL + "(\\." + DNS1123_LABEL + ")*";
  private static final String DNS1035_LABEL = "[a-z]([-a-z0-9]*[a-z0-9])?";
  private static final String QUALIFIED_NAME = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
  private static final String LABEL_VALUE = "(" + QUALIFIED_NAME + ")?";
  private static final String ENV_NAME = "[-._a-zA-Z][-._a-zA-Z0-9]*";
  private static final String CONFIG_KEY = "[-._a-zA-Z0-9]+";

  private Formats() {}

  public static List<String> dns1123Label(String v) {
    List<String> out = new ArrayList<>();
    if (v.length() > 63) {
      out.add("must be no more than 63 characters");
    }
    if (!v.matches(DNS1123_LABEL)) {
      out.add(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-',"
              + " and must start and end with an alphanumeric character (e.g. 'my-name',  or"
              + " '123-abc', regex used for validation is '"
              + DNS1123_LABEL
              + "')");
    }
    return out;
  }

  public static List<String> dns1123Subdomain(String v) {
    List<String> out = new ArrayList<>();
    if (v.length() > 253) {
      out.add("must be no more than 253 characters");
    }
    if (!v.matches(DNS1123_SUBDOMAIN)) {
      out.add(
          "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-'"
              + " or '.', and must start and end with an alphanumeric character (e.g."
              + " 'example.com', regex used for validation is '"
              + DNS1123_SUBDOMAIN
              + "')");
    }
    return out;
  }

  public static List<String> dns1035Label(String v) {
    List<String> out = new ArrayList<>();
    if (v.length() > 63) {
      out.add("must be no more than 63 characters");
    }
    if (!v.matches(DNS1035_LABEL)) {
      out.add(
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with"
              + " an alphabetic character, and end with an alphanumeric character (e.g. 'my-name', "
              + " or 'abc-123', regex used for validation is '"
              + DNS1035_LABEL
              + "')");
    }
    return out;
  }

  /** A label or annotation key: an optional DNS subdomain prefix and a name of 63 at most. */
  public static List<String> qualifiedName(String v) {
    List<String> out = new ArrayList<>();
    String name = v;
    int slash = v.indexOf('/');
    if (slash >= 0) {
      String prefix = v.substring(0, slash);
      name = v.substring(slash + 1);
      if (prefix.isEmpty()) {
        out.add("prefix part must be non-empty");
      } else {
        dns1123Subdomain(prefix).forEach(m -> out.add("prefix part " + m));
      }
    }
    if (name.isEmpty()) {
      out.add("name part must be non-empty");
    } else {
      if (name.length() > 63) {
        out.add("name part must be no more than 63 characters");
      }
      if (!name.matches(QUALIFIED_NAME)) {
        out.add(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start"
                + " and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or"
                + " '123-abc', regex used for validation is '"
                + QUALIFIED_NAME
                + "')");
      }
    }
    return out;
  }

  public static List<String> labelValue(String v) {
    List<String> out = new ArrayList<>();
    if (v.length() > 63) {
      out.add("must be no more than 63 characters");
    }
    if (!v.matches(LABEL_VALUE)) {
      out.add(
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_'"
              + " or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', "
              + " or 'my_value',  or '12345', regex used for validation is '"
              + LABEL_VALUE
              + "')");
    }
    return out;
  }

  public static List<String> envVarName(String v) {
    return v.matches(ENV_NAME)
        ? List.of()
        : List.of(
            "a valid environment variable name must consist of alphabetic characters, digits, '_',"
                + " '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or"
                + " 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '"
                + ENV_NAME
                + "')");
  }

  public static List<String> configMapKey(String v) {
    List<String> out = new ArrayList<>();
    if (v.length() > 253) {
      out.add("must be no more than 253 characters");
    }
    if (!v.matches(CONFIG_KEY)) {
      out.add(
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g."
              + " 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '"
              + CONFIG_KEY
              + "')");
    }
    if (v.equals(".")) {
      out.add("must not be '.'");
    } else if (v.equals("..")) {
      out.add("must not be '..'");
    } else if (v.startsWith("..")) {
      out.add("must not start with '..'");
    }
    return out;
  }

  /** An IANA service name (a named port): at most 15 characters, letters, digits and '-'. */
  public static List<String> portName(String v) {
    List<String> out = new ArrayList<>();
    if (v.length() > 15) {
      out.add("must be no more than 15 characters");
    }
    if (!v.matches("[-a-z0-9]+")) {
      out.add("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
    }
    if (v.contains("--")) {
      out.add("must not contain consecutive hyphens");
    }
    if (!v.matches(".*[a-z].*")) {
      out.add("must contain at least one letter (a-z)");
    }
    if (v.startsWith("-") || v.endsWith("-")) {
      out.add("must not begin or end with a hyphen");
    }
    return out;
  }

  /** Whether the text is an IPv4 or IPv6 address literal. */
  public static boolean isIp(String v) {
    return v.matches("(\\d{1,3})(\\.\\d{1,3}){3}")
            && Arrays.stream(v.split("\\.")).allMatch(p -> Integer.parseInt(p) <= 255)
        || (v.contains(":") && Pattern.matches("[0-9a-fA-F:.]+", v));
  }
}
