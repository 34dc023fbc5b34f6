package io.etcdoperator.operator.model;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes an object the informers are about to cache smaller without changing what it says (and the
 * pod template that each cluster's {@link EtcdClusterModel} keeps, which is as common). The
 * operator caches a handful of objects per cluster (its StatefulSet, pods, claims, Services,
 * ConfigMaps, budget), and at a thousand clusters most of their heap is made of parts that are the
 * same in every cluster: the text of label keys, flag names, images, paths, condition types and
 * reasons, each a string of its own in every object as the JSON was read, and the {@code
 * additionalProperties} map that fabric8 gives every model object (a Pod has some fifty), nearly
 * always empty. The compactor walks the object once, before the store keeps it:
 *
 * <ul>
 *   <li>each string is replaced by the JVM's canonical copy ({@link String#intern}; the JVM's table
 *       lets a string go when nothing else refers to it), except the fields that are never the same
 *       twice ({@code uid}, {@code resourceVersion});
 *   <li>each empty {@code additionalProperties} map is replaced by one shared empty map;
 *   <li>each other map is copied into an unchangeable map of canonical keys and values, without the
 *       spare slots of a hash table; each empty list is replaced by the one shared empty list (a
 *       Pod read from JSON has some twenty, fabric8 makes one for every list field), each other
 *       list by an unchangeable copy of its compacted elements;
 *   <li>each field that holds a Kubernetes model object (of {@code io.fabric8.kubernetes.api.model}
 *       and its subpackages) is walked in turn.
 * </ul>
 *
 * Equality is kept ({@code equals} of strings, maps and model objects compares content), and so is
 * the JSON but for the order of a map's keys, which nothing reads. The maps and lists refuse
 * changes: a cached object is never changed after it enters the store (JOSDK hands out its cache to
 * be read, and the operator makes what it writes with builders, which copy maps and lists).
 */
public final class Compactor {
  private static final String MODEL = "io.fabric8.kubernetes.api.model";
  private static final Map<String, Object> NO_PROPERTIES = Collections.emptyMap();

  /** The instance fields of each model class, accessible. */
  private static final ClassValue<List<Field>> FIELDS =
      new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> type) {
          List<Field> fields = new ArrayList<>();
          for (Class<?> c = type; c != null && isModel(c); c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
              int m = f.getModifiers();
              if (!Modifier.isStatic(m) && !Modifier.isFinal(m) && f.trySetAccessible()) {
                fields.add(f);
              }
            }
          }
          return List.copyOf(fields);
        }
      };

  private Compactor() {}

  /** The object, compacted in place; returned for use as a store's trim. */
  public static <T> T compact(T object) {
    if (object != null && isModel(object.getClass())) {
      walk(object);
    }
    return object;
  }

  private static boolean isModel(Class<?> c) {
    return c.getName().startsWith(MODEL);
  }

  private static void walk(Object model) {
    for (Field f : FIELDS.get(model.getClass())) {
      try {
        Object value = f.get(model);
        if (value == null) {
          continue;
        }
        Object compacted = compactValue(f.getName(), value);
        if (compacted != value) {
          f.set(model, compacted);
        }
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("cannot compact " + f, e);
      }
    }
  }

  /** The value compacted: the same instance changed in place, or its replacement. */
  private static Object compactValue(String field, Object value) {
    if (value instanceof String s) {
      return "uid".equals(field) || "resourceVersion".equals(field) ? s : s.intern();
    }
    if (value instanceof Map<?, ?> map) {
      if (map.isEmpty()) {
        return "additionalProperties".equals(field) ? NO_PROPERTIES : map;
      }
      return compactMap(map);
    }
    if (value instanceof List<?> list) {
      return compactList(list);
    }
    if (isModel(value.getClass())) {
      walk(value);
    }
    return value;
  }

  /**
   * The map's canonical copy: unchangeable and without a hash table of spare slots ({@link
   * Map#copyOf}; its order is not kept, which nothing reads), or, when it holds a null, a
   * LinkedHashMap in the same order.
   */
  private static Map<Object, Object> compactMap(Map<?, ?> map) {
    Map<Object, Object> copy = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : map.entrySet()) {
      Object key = e.getKey() instanceof String s ? s.intern() : e.getKey();
      copy.put(key, e.getValue() == null ? null : compactValue("", e.getValue()));
    }
    return copy.containsKey(null) || copy.containsValue(null) ? copy : Map.copyOf(copy);
  }

  /**
   * The list's canonical copy: the one shared empty list, or an unchangeable copy of its compacted
   * elements ({@link List#copyOf}: one or two elements without an array); a list holding a null
   * (which {@link List#copyOf} refuses) becomes a list of its compacted elements, without spare
   * capacity.
   */
  private static List<?> compactList(List<?> list) {
    if (list.isEmpty()) {
      return List.of();
    }
    List<Object> copy = new ArrayList<>(list.size());
    for (Object element : list) {
      copy.add(element == null ? null : compactValue("", element));
    }
    return copy.contains(null) ? copy : List.copyOf(copy);
  }
}
