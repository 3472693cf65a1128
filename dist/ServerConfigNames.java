// Prints the server config names a Kafka release knows (its KafkaConfig's ConfigDef), one per line, sorted: the
// removed keys of plugins/module_utils/kafka_versions.py are one release's names less the next one's.
//   java -cp '.cache/kafka/kafka_2.13-3.9.2/libs/*' dist/ServerConfigNames.java > 3.9.2.txt
public class ServerConfigNames {
    public static void main(String[] args) throws Exception {
        Object def = Class.forName("kafka.server.KafkaConfig").getMethod("configDef").invoke(null);
        new java.util.TreeSet<>(((org.apache.kafka.common.config.ConfigDef) def).names()).forEach(System.out::println);
    }
}
