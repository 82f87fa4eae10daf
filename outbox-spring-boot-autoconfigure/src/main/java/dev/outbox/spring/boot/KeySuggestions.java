package dev.outbox.spring.boot;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The known keys close to a mistyped one, for a "did you mean" in an unknown-key error: the nearest
 * within two edits, or else those that share its beginning or its end in whole words ({@code
 * outbox.poll} and {@code outbox.poll-interval}, {@code outbox.max-lag} and {@code
 * outbox.health.max-lag}). Keys compare in environment form, so {@code OUTBOX_POLL_INTERVALL} finds
 * {@code outbox.poll-interval} too.
 */
final class KeySuggestions {

  /** At most this many edits from the typo. */
  static final int MAX_EDITS = 2;

  /** More words-in-common matches than this suggest nothing: the typo says too little. */
  private static final int MAX_SHARED = 4;

  private KeySuggestions() {}

  /**
   * The known keys the unknown one was probably meant as.
   *
   * @param unknown the key as given, dotted or in environment form
   * @param known the known keys, dotted
   * @return the closest known keys, dotted; empty when none is close
   */
  static List<String> closeTo(String unknown, List<String> known) {
    String typo = normalized(unknown);
    List<String> nearest = new ArrayList<>();
    int best = MAX_EDITS + 1;
    for (String key : known) {
      int edits = distance(typo, normalized(key));
      if (edits < best) {
        best = edits;
        nearest.clear();
      }
      if (edits == best) {
        nearest.add(key);
      }
    }
    if (!nearest.isEmpty()) {
      return nearest;
    }
    List<String> shared = new ArrayList<>();
    for (String key : known) {
      String candidate = normalized(key);
      if (typo.startsWith(candidate + '_')
          || candidate.startsWith(typo + '_')
          || candidate.endsWith(wordsAfterPrefix(typo))) {
        shared.add(key);
      }
    }
    return shared.size() <= MAX_SHARED ? shared : List.of();
  }

  /** {@code _MAX_LAG} of {@code OUTBOX_MAX_LAG}: the words below the first, as a suffix. */
  private static String wordsAfterPrefix(String typo) {
    int underscore = typo.indexOf('_');
    return underscore < 0 || underscore == typo.length() - 1
        ? "\u0000" // matches no key
        : typo.substring(underscore);
  }

  /** The key as the environment form writes it: {@code outbox.batch-size} is OUTBOX_BATCH_SIZE. */
  static String normalized(String key) {
    return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /**
   * Edits between two texts: insertions, deletions, substitutions, and swaps of two neighbours
   * ({@code kafak} is one edit from {@code kafka}).
   */
  static int distance(String a, String b) {
    int[][] edits = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      edits[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      edits[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        int best =
            Math.min(edits[i - 1][j - 1] + cost, Math.min(edits[i - 1][j], edits[i][j - 1]) + 1);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          best = Math.min(best, edits[i - 2][j - 2] + 1);
        }
        edits[i][j] = best;
      }
    }
    return edits[a.length()][b.length()];
  }

  /**
   * The edits allowed between a short name and its typo: one up to four letters ({@code nats}),
   * else {@link #MAX_EDITS}.
   */
  static int allowedEdits(String name) {
    return name.length() <= 4 ? 1 : MAX_EDITS;
  }
}
