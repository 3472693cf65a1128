// Prints every metadata.version a Kafka release knows, one per line: its name, its feature level, whether the release
// counts it as production-ready, and whether it changed the metadata's format (Kafka cannot go back across such a
// level without losing metadata). The upgrade work reads the levels from here, not from release notes.
//   java -cp '.cache/kafka/kafka_2.13-4.4.0/libs/*' dist/MetadataVersions.java
// On 2026-11-27: 3.9.2 knows up to 3.9-IV0 (21) in production (4.0-IV0 and 4.0-IV1, 22-23, not); 4.4.0 from 3.3-IV3
// (7) to 4.4-IV2 (33) in production (4.5-IV0, 34, not), and after 3.9-IV0 the format changed at 4.0-IV1 (23), 4.3-IV0
// (30), 4.4-IV1 (32) and 4.4-IV2 (33).
public class MetadataVersions {
    public static void main(String[] args) throws Exception {
        Class<?> mv = Class.forName("org.apache.kafka.server.common.MetadataVersion");
        for (Object v : mv.getEnumConstants()) {
            System.out.println(mv.getMethod("version").invoke(v) + " " + mv.getMethod("featureLevel").invoke(v) + " "
                               + mv.getMethod("isProduction").invoke(v) + " "
                               + mv.getMethod("didMetadataChange").invoke(v));
        }
    }
}
