#include "interpreter/ops/thread_pool.h"

#include <algorithm>

namespace hloref {

WorkerPool& WorkerPool::Shared() {
  static WorkerPool* const pool = new WorkerPool();
  return *pool;
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

int WorkerPool::threads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(threads_.size());
}

void WorkerPool::Run(int workers, const std::function<void(int)>& fn) {
  if (workers <= 1) {
    fn(0);
    return;
  }
  Job job{&fn, workers - 1};
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (static_cast<int>(threads_.size()) < workers - 1) {
      threads_.emplace_back([this] { Loop(); });
    }
    queue_.push_back(&job);
  }
  work_.notify_all();
  fn(0);
  std::unique_lock<std::mutex> lock(mu_);
  // Slots nobody took are dropped; then wait for the ones that started.
  const auto it = std::find(queue_.begin(), queue_.end(), &job);
  if (it != queue_.end()) queue_.erase(it);
  done_.wait(lock, [&] { return job.running == 0; });
}

void WorkerPool::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job* job = queue_.front();
    const int slot = job->next++;
    if (job->next > job->slots) queue_.pop_front();
    ++job->running;
    lock.unlock();
    (*job->fn)(slot);
    lock.lock();
    // The owner waits for running == 0 under mu_, so `job` is alive here.
    if (--job->running == 0) done_.notify_all();
  }
}

}  // namespace hloref
