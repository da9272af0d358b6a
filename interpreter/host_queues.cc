// Host I/O queues and device-to-device channel mailboxes.
#include "interpreter/host_queues.h"

#include <utility>

namespace hloref {

void HostQueues::PushInfeed(Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  infeed_.push_back(std::move(value));
}

void HostQueues::PushRecv(int64_t channel_id, Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  recv_[channel_id].push_back(std::move(value));
}

std::vector<Literal> HostQueues::TakeOutfeed() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Literal> out = std::move(outfeed_);
  outfeed_.clear();
  return out;
}

std::vector<Literal> HostQueues::TakeSent(int64_t channel_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sent_.find(channel_id);
  if (it == sent_.end()) return {};
  std::vector<Literal> out = std::move(it->second);
  sent_.erase(it);
  return out;
}

std::vector<int64_t> HostQueues::SentChannels() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<int64_t> ids;
  for (const auto& [id, values] : sent_) {
    if (!values.empty()) ids.push_back(id);
  }
  return ids;
}

int64_t HostQueues::infeed_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(infeed_.size());
}

int64_t HostQueues::recv_size(int64_t channel_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = recv_.find(channel_id);
  return it == recv_.end() ? 0 : static_cast<int64_t>(it->second.size());
}

std::optional<Literal> HostQueues::PopInfeed() {
  std::lock_guard<std::mutex> lock(mu_);
  if (infeed_.empty()) return std::nullopt;
  Literal value = std::move(infeed_.front());
  infeed_.pop_front();
  return value;
}

std::optional<Literal> HostQueues::PopRecv(int64_t channel_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = recv_.find(channel_id);
  if (it == recv_.end() || it->second.empty()) return std::nullopt;
  Literal value = std::move(it->second.front());
  it->second.pop_front();
  return value;
}

void HostQueues::AppendOutfeed(Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  outfeed_.push_back(std::move(value));
}

void HostQueues::AppendSent(int64_t channel_id, Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  sent_[channel_id].push_back(std::move(value));
}

void DeviceChannels::Send(int64_t channel_id, Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  mailboxes_[channel_id].push_back(std::move(value));
}

std::optional<Literal> DeviceChannels::Receive(int64_t channel_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = mailboxes_.find(channel_id);
  if (it == mailboxes_.end() || it->second.empty()) return std::nullopt;
  Literal value = std::move(it->second.front());
  it->second.pop_front();
  return value;
}

int64_t DeviceChannels::pending(int64_t channel_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = mailboxes_.find(channel_id);
  return it == mailboxes_.end() ? 0 : static_cast<int64_t>(it->second.size());
}

}  // namespace hloref
