package dev.egressproxies.fake;

import dev.egressproxies.api.Operation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The settings of one {@code fake} provider entry: the zones, machine types and images it
 * accepts, how long its instances take to boot, where it keeps its instances, whether it logs its
 * operations, and the faults it injects. Every field is optional:
 * <pre>{@code
 * providers:
 *   - name: local
 *     type: fake
 *     zones: [zone-a, zone-b]          # default [zone-a]
 *     machineTypes: [small, large]     # default [small]
 *     images: [debian-12]              # default [debian-12]
 *     bootDelay: 2s                    # default 0: RUNNING at once
 *     stateFile: fake/local.json       # default none: in memory; relative to the state directory
 *     operationLog: true               # default false; needs stateFile
 *     faults:                          # keys: create, get, delete, listManaged
 *       get: {latency: 200ms}
 * }</pre>
 *
 * <p><b>The operation log.</b> With {@code operationLog: true}, each create and delete of the entry
 * (a create of a stopped instance starts it) adds a record to the state file as it begins, before
 * any injected hang or latency, and completes it as it ends, however it ends. Both writes are made
 * under the state file's lock, as instance changes are, with the time read under the lock: when
 * one operation's end was written before another's beginning, its {@code ended} is no later than
 * the other's {@code started}. Every process and entry keeping a log in the file adds to the same
 * list, which keeps the last 10,000 records, dropping the oldest. A call refused before it begins
 * (an invalid request or ID, a deadline passed on arrival) is not recorded, nor are the test hooks
 * of {@link FakeProvider}. A file holding records has {@code "version": 4} and lists them, oldest
 * first, under {@code "operations"}, next to {@code "instances"}; a file without records stays
 * {@code "version": 3}, as before the log:
 * <pre>{@code
 * {
 *   "version" : 4,
 *   "instances" : [ ... ],
 *   "operations" : [ {
 *     "seq" : 41,
 *     "entry" : "local",
 *     "operation" : "create",
 *     "instance" : "zone-a/proxy-1",
 *     "pid" : 4711,
 *     "processStart" : "2030-01-01T00:00:00.120Z",
 *     "host" : "build-7",
 *     "started" : "2030-01-01T00:00:05.123456Z",
 *     "ended" : "2030-01-01T00:00:05.623456789Z",
 *     "outcome" : "ok"
 *   } ]
 * }
 * }</pre>
 * Every field is always written:
 * <ul>
 *   <li>{@code seq}, a number: one more than the record before it, so the numbers order the
 *       beginnings as the lock did;</li>
 *   <li>{@code entry}: the provider entry called; {@code operation}: {@code create} or
 *       {@code delete}; {@code instance}: the provider ID called with, or for a create that named
 *       no zone, the instance's name;</li>
 *   <li>{@code pid}, a number, {@code processStart} (null where the OS does not tell) and
 *       {@code host}: the process that made the call; PID and start tell it from a later process
 *       given the same PID;</li>
 *   <li>{@code started} and {@code ended}: when the call began and ended, by the platform's clock;
 *       {@code ended} is null while the call is in flight, and stays null when its process died
 *       in it (or could not write the end, which it logs as a warning);</li>
 *   <li>{@code outcome}: null while in flight, then {@code ok}, the kind of the provider error the
 *       call failed with ({@code PERMANENT}, {@code TRANSIENT}, {@code QUOTA_EXCEEDED},
 *       {@code NOT_FOUND}), or the simple class name of any other exception.</li>
 * </ul>
 * Instants are ISO-8601 in UTC as {@link java.time.Instant#toString()} writes them: to the
 * nanosecond the clock gives, with trailing zero groups of digits left out, so compare them
 * parsed, not as text.
 *
 * @param zones        the zone names placements may use; letters, digits, '.', '_' and '-'
 * @param machineTypes the machine type names placements may use
 * @param images       the image names placements may use
 * @param bootDelay    how long an instance stays PROVISIONING after it is created or started
 * @param stateFile    the JSON file that keeps the instances, shared by every process using it;
 *                     {@code null} keeps them in memory, for the life of the provider. A relative
 *                     path is resolved against the platform's state directory
 * @param operationLog whether the entry records each of its creates and deletes in the state file,
 *                     for tests that check who acted on the entry when (above); false by default.
 *                     Needs {@code stateFile}
 * @param faults       the faults to inject, by operation name (see {@link FaultConfig})
 */
public record FakeConfig(List<String> zones, List<String> machineTypes, List<String> images,
                         Duration bootDelay, Path stateFile, Boolean operationLog, Map<String, FaultConfig> faults) {

    /** The zones of an entry that configures none. */
    public static final List<String> DEFAULT_ZONES = List.of("zone-a");
    /** The machine types of an entry that configures none. */
    public static final List<String> DEFAULT_MACHINE_TYPES = List.of("small");
    /** The images of an entry that configures none. */
    public static final List<String> DEFAULT_IMAGES = List.of("debian-12");

    /** Applies defaults and rejects values that cannot work, saying which field to fix and how. */
    public FakeConfig {
        zones = names("zones", zones, DEFAULT_ZONES, true);
        machineTypes = names("machineTypes", machineTypes, DEFAULT_MACHINE_TYPES, false);
        images = names("images", images, DEFAULT_IMAGES, false);
        bootDelay = bootDelay == null ? Duration.ZERO : bootDelay;
        if (bootDelay.isNegative()) {
            throw new IllegalArgumentException("bootDelay is negative (" + bootDelay
                    + "): use zero (RUNNING at once) or a positive duration, for example 2s");
        }
        if (stateFile != null && stateFile.toString().isBlank()) {
            throw new IllegalArgumentException(
                    "stateFile is empty: give a file path, or leave stateFile out to keep instances in memory");
        }
        // Boxed, so the registry treats it as optional: absent means false.
        operationLog = operationLog != null && operationLog;
        if (operationLog && stateFile == null) {
            throw new IllegalArgumentException("operationLog is true but stateFile is not set: the log is kept in"
                    + " the state file, where every process using the entry can add to it and tests can read it;"
                    + " set stateFile to a file path, or remove operationLog");
        }
        faults = faults(faults);
    }

    /** The configuration with every default: one zone, one machine type, one image, in memory. */
    public static FakeConfig defaults() {
        return new FakeConfig(null, null, null, null, null, null, null);
    }

    /** This configuration with other zones. */
    public FakeConfig withZones(String... zones) {
        return new FakeConfig(List.of(zones), machineTypes, images, bootDelay, stateFile, operationLog, faults);
    }

    /** This configuration with another boot delay. */
    public FakeConfig withBootDelay(Duration bootDelay) {
        return new FakeConfig(zones, machineTypes, images, bootDelay, stateFile, operationLog, faults);
    }

    /** This configuration keeping its instances in {@code stateFile} ({@code null}: in memory). */
    public FakeConfig withStateFile(Path stateFile) {
        return new FakeConfig(zones, machineTypes, images, bootDelay, stateFile, operationLog, faults);
    }

    /** This configuration logging its operations in its state file, or not. */
    public FakeConfig withOperationLog(boolean operationLog) {
        return new FakeConfig(zones, machineTypes, images, bootDelay, stateFile, operationLog, faults);
    }

    /** This configuration with {@code fault} injected into {@code operation}. */
    public FakeConfig withFault(Operation operation, FaultConfig fault) {
        Map<String, FaultConfig> more = new LinkedHashMap<>(faults);
        more.put(operation.displayName(), fault);
        return new FakeConfig(zones, machineTypes, images, bootDelay, stateFile, operationLog, more);
    }

    /** The configured faults keyed by the operation they apply to. */
    Map<Operation, FaultConfig> faultsByOperation() {
        Map<Operation, FaultConfig> byOperation = new EnumMap<>(Operation.class);
        faults.forEach((name, fault) -> byOperation.put(operationNamed(name), fault));
        return byOperation;
    }

    private static List<String> names(String field, List<String> names, List<String> defaults, boolean zoneNames) {
        if (names == null) {
            return defaults;
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException(field + " is empty: list at least one name, for example "
                    + defaults + ", or leave " + field + " out to get that default");
        }
        Set<String> seen = new HashSet<>();
        for (int index = 0; index < names.size(); index++) {
            String name = names.get(index);
            String position = field + "[" + index + "]";
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException(position + " is empty: give every entry of " + field + " a name");
            }
            if (zoneNames && !ProviderIds.isZoneName(name)) {
                throw new IllegalArgumentException(position + " '" + name + "' is not a valid zone name: use 1 to 63"
                        + " letters, digits, '.', '_' or '-', starting and ending with a letter or digit");
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException(position + " '" + name + "' is listed twice in " + field
                        + ": remove the duplicate");
            }
        }
        return List.copyOf(names);
    }

    private static Map<String, FaultConfig> faults(Map<String, FaultConfig> faults) {
        if (faults == null) {
            return Map.of();
        }
        Map<String, FaultConfig> checked = new LinkedHashMap<>();
        faults.forEach((name, fault) -> {
            operationNamed(name);
            if (fault == null) {
                throw new IllegalArgumentException("faults." + name + " has no settings: give at least one of kind,"
                        + " latency, hang or failAfter, or remove faults." + name);
            }
            checked.put(name, fault);
        });
        return Collections.unmodifiableMap(checked);
    }

    private static Operation operationNamed(String name) {
        for (Operation operation : FaultInjector.OPERATIONS) {
            if (operation.displayName().equals(name)) {
                return operation;
            }
        }
        throw new IllegalArgumentException("faults has an unknown operation '" + name + "': use one of "
                + FaultInjector.OPERATIONS.stream().map(Operation::displayName).collect(Collectors.joining(", ")));
    }
}
